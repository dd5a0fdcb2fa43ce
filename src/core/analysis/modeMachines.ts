/**
 * The MDS 2.0 vehicle state machines, read from the official `modes/*.md` text (openmobilityfoundation/
 * mobility-data-specification, tag 2.0.2, vendored in schemas/mds-modes/): each mode's "Vehicle State Events" table
 * (from state, to state, event type) and the sentences beside it that open whole families of transitions ("any state
 * can go to `non_contactable` with event type `comms_lost` or `unspecified`"), and from `vehicle_states.md` which
 * states are in the public right-of-way. The parsed result is committed as modeTransitions.json
 * (`node scripts/update-mds-modes.mjs` regenerates it); a unit test parses the vendored text again and compares.
 */

/** One mode's machine: its states and every (from, event type, to) the text allows. */
export interface ModeMachine {
  mode: string;
  states: string[];
  transitions: [from: string, eventType: string, to: string][];
}

/** Every mode's machine and the states in the public right-of-way. */
export interface ModeMachines {
  source: { repository: string; ref: string; commit: string };
  prowStates: string[];
  modes: Record<string, ModeMachine>;
}

const TICKED = /`([^`]+)`/g;

/** The backticked words of a table cell or a sentence, trimmed (the text has `on_trip ` with a space). */
function ticked(text: string): string[] {
  return [...text.matchAll(TICKED)].map((m) => m[1].trim());
}

/** The lines of the section under `heading` (a `###` heading starting with it), up to the next heading. */
function section(text: string, heading: RegExp): string[] {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^#{1,3} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

/** Parses one mode's markdown (`modes/<mode>.md`). Throws when the text has no mode id, states or table. */
export function parseModeMachine(text: string): ModeMachine {
  const mode = /short name identifier for .+? used across MDS is `([^`]+)`/.exec(text)?.[1];
  if (!mode) throw new Error('no "short name identifier" sentence naming the mode');
  const states = section(text, /^### Vehicle States\s*$/)
    .filter((l) => /^\s*- `/.test(l))
    .flatMap(ticked);
  if (!states.length) throw new Error(`${mode}: no list under "### Vehicle States"`);
  const events = section(text, /^### Vehicle States? Events/);
  const header = events.findIndex((l) => /^\|.*\*\*From\*\*.*\*\*To\*\*/.test(l));
  if (header < 0) throw new Error(`${mode}: no From/To table under "### Vehicle State Events"`);
  const columns = cells(events[header]);
  const fromAt = columns.findIndex((c) => c.includes('**From**'));
  const toAt = columns.findIndex((c) => c.includes('**To**'));
  const eventAt = columns.findIndex((c) => /^`event_type`$/.test(c));
  if (eventAt < 0) throw new Error(`${mode}: the table has no event_type column`);
  const seen = new Set<string>();
  const transitions: ModeMachine['transitions'] = [];
  const add = (from: string, eventType: string, to: string) => {
    const key = `${from} ${eventType} ${to}`;
    if (seen.has(key)) return;
    seen.add(key);
    transitions.push([from, eventType, to]);
  };
  for (const line of events.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    for (const from of ticked(row[fromAt]))
      for (const to of ticked(row[toAt])) for (const eventType of ticked(row[eventAt])) add(from, eventType, to);
  }
  // The sentences that open a state to or from every other state, read clause by clause: in "any state can go to
  // `non_contactable` with event type `comms_lost` or `unspecified`, and `non_contactable` can go to any state with
  // …", the word after ", and" starts the next clause, not a third event type.
  const clauses = events
    .slice(0, header)
    .join(' ')
    .split(/,\s+and\s+|:\s+|\.(?:\s+|$)|;\s+/);
  const eventTypes = '((?:`[^`]+`(?:,? (?:or|of) |, )?)+)$';
  for (const clause of clauses.map((c) => c.trim())) {
    const into = new RegExp(`any state can go to \`([^\`]+)\` with (?:the following )?event types? ${eventTypes}`).exec(
      clause,
    );
    if (into)
      for (const from of states)
        if (from !== into[1]) for (const eventType of ticked(into[2])) add(from, eventType, into[1]);
    const out = new RegExp(`^\`([^\`]+)\` can go to any state with (?:the following )?event types? ${eventTypes}`).exec(
      clause,
    );
    if (out)
      for (const to of states) if (to !== out[1]) for (const eventType of ticked(out[2])) add(out[1], eventType, to);
  }
  return { mode, states, transitions };
}

/** The states `vehicle_states.md` marks "In PROW? yes". */
export function parseProwStates(text: string): string[] {
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((l) => /^\|.*In PROW\?/.test(l));
  if (header < 0) throw new Error('vehicle_states.md: no "In PROW?" table');
  const prowAt = cells(lines[header]).findIndex((c) => c.includes('In PROW?'));
  const stateAt = cells(lines[header]).findIndex((c) => c.includes('vehicle_state'));
  const out: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    if (/^yes$/i.test(row[prowAt])) out.push(...ticked(row[stateAt]));
  }
  return out;
}
