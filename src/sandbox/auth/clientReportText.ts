/**
 * The report card as plain text, for the CLI (`sandbox --grade`), `GET /_sandbox/report?format=text`
 * and the read-only document of VS Code's "Sandbox: Client Report". Values the client sent (paths,
 * claims) are data: shown as JSON, with control characters escaped, so they cannot move a terminal's
 * cursor or fake a line of the card.
 */
import type { ClientReport, GradeExample } from './clientGrade';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Control characters (C0, DEL, C1) and the line and paragraph separators as `\uXXXX`. */
function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function exampleLines(first: GradeExample, indent: string): string[] {
  const lines = [
    `${indent}first: ${printable(first.method)} ${printable(first.path)} at ${first.time} (${first.transport})`,
    `${indent}why: ${printable(first.description)}`,
  ];
  if (Object.keys(first.claims).length > 0) lines.push(`${indent}claims: ${printable(JSON.stringify(first.claims))}`);
  for (const detail of first.details) lines.push(`${indent}${printable(detail)}`);
  return lines;
}

/** The report card in a few dozen lines at most (one block per broken rule and per warning). */
export function clientReportText(report: ClientReport): string {
  const { seen, accepted, refused, unchecked } = report.requests;
  const lines = [
    `Sandbox client report card (${report.since} to ${report.until}, sandbox clock)`,
    '',
    `Requests seen: ${seen}   accepted: ${accepted}   refused: ${refused}   answered without a token check: ${unchecked}`,
    `Grade: ${report.grade === 'pass' ? 'PASS, no token was refused' : report.grade === 'fail' ? `FAIL, ${count(report.refusals.length, 'rule')} of spec 5 broken` : 'no token seen yet'}`,
    '',
  ];
  if (report.refusals.length === 0) {
    lines.push('Refused by rule: none');
  } else {
    lines.push('Refused by rule:');
    for (const tally of report.refusals) {
      lines.push(
        `  ${tally.rule} (spec ${tally.spec}): ${count(tally.count, 'request')}`,
        `    rule: ${tally.requirement}`,
        ...exampleLines(tally.first, '    '),
      );
    }
  }
  lines.push('');
  if (report.warnings.length === 0) {
    lines.push('Warnings (fragile: a stricter server may refuse such tokens): none');
  } else {
    lines.push('Warnings (fragile: a stricter server may refuse such tokens):');
    for (const tally of report.warnings) {
      lines.push(`  ${tally.id}: ${count(tally.count, 'request')}`, ...exampleLines(tally.first, '    '));
    }
  }
  return lines.join('\n');
}
