/**
 * Deterministic randomness for the synthetic world: every value is derived from the seed and the
 * coordinates of what it describes (vehicle, hour, serial), never from a shared stream, so any
 * hour of any vehicle can be computed alone and in any order.
 */

/** Small seeded PRNG (mulberry32): fast, 32-bit state, good enough for synthetic data. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes two 32-bit numbers into one well-spread seed. */
export function mixSeed(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of any number of 32-bit parts (hour indexes fit: they stay below 2^31 until the year 246,000). */
export function hashOf(...parts: number[]): number {
  let h = 0x2545f491;
  for (const part of parts) h = mixSeed(h, part >>> 0);
  return h;
}

/** A uniform number in [0, 1) from the parts. */
export function unitOf(...parts: number[]): number {
  return hashOf(...parts) / 4294967296;
}

/** A PRNG seeded by the parts. */
export function streamOf(...parts: number[]): () => number {
  return mulberry32(hashOf(...parts));
}

/** Inverse of an odd number modulo 2^32 (Newton's iteration doubles the correct bits each step). */
function inverseOdd(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x >>> 0;
}

const M1 = 0x7feb352d;
const M2 = 0x846ca68b;
const M1_INV = inverseOdd(M1);
const M2_INV = inverseOdd(M2);

/**
 * A bijection on 32-bit numbers (xor-shift by 16 undoes itself, odd multipliers are invertible):
 * it turns an index into a random-looking, collision-free 32-bit block.
 */
export function permute(index: number, salt: number): number {
  let x = (index ^ salt) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M1) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M2) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}

/** The inverse of `permute` for the same salt. */
export function unpermute(value: number, salt: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M2_INV) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, M1_INV) >>> 0;
  x ^= x >>> 16;
  return (x ^ salt) >>> 0;
}

function hex(n: number, digits: number): string {
  return (n >>> 0).toString(16).padStart(digits, '0').slice(-digits);
}

/** A UUID-v4-shaped string; `first` is its first 32 bits, the rest comes from `random`. */
export function uuidFrom(first: number, random: () => number): string {
  const word = () => Math.floor(random() * 4294967296);
  const b = hex(word(), 8);
  const c = hex(word(), 8);
  const d = hex(word(), 8);
  const versioned = `4${b.slice(5, 8)}`;
  const variant = ((parseInt(c[0] ?? '0', 16) & 0x3) | 0x8).toString(16) + c.slice(1, 4);
  return `${hex(first, 8)}-${b.slice(0, 4)}-${versioned}-${variant}-${c.slice(4, 8)}${d}`;
}

/** A bijection on 28-bit numbers: odd multipliers and xor-shifts stay invertible modulo 2^28. */
function permute28(value: number, salt: number): number {
  const mask = 0xfffffff;
  let x = (value ^ salt) & mask;
  x = Math.imul(x, 0x2c1b3c6d) & mask;
  x ^= x >>> 14;
  x = Math.imul(x, 0x297a2d39) & mask;
  x ^= x >>> 13;
  return x & mask;
}

/** What a world id names; each kind has its own salt. */
export type WorldIdKind = 'trip' | 'event' | 'telemetry' | 'stop';

const KIND_SALT: Readonly<Record<WorldIdKind, number>> = {
  trip: 0x7419,
  event: 0xe7e4,
  telemetry: 0x7e1e,
  stop: 0x5709,
};

/**
 * A UUID v4 (random-looking, version and variant bits set) for the `serial`-th item of one kind
 * in one vehicle-hour. Unique within a kind by construction, not by luck: the next 28 bits after
 * the first 32 are a bijection of the hour, the first 32 one of the vehicle for that hour, the next 12 of the serial (below 4096); the
 * last 48 bits are pseudo-random and only decorate.
 */
export function worldUuid(seed: number, kind: WorldIdKind, vehicle: number, hour: number, serial: number): string {
  const salt = mixSeed(seed, KIND_SALT[kind]);
  // Adding a function of the hour keeps (vehicle, hour) -> (a, b) one-to-one, since b gives the hour back.
  const a = permute((vehicle + hashOf(salt, hour)) >>> 0, salt);
  const b = permute28(hour, salt);
  const c = ((serial & 0xfff) * 0x9e5 + (hashOf(salt, vehicle, hour) & 0xfff)) & 0xfff;
  const tail = hashOf(salt, vehicle, hour, serial);
  const tail2 = hashOf(tail, 0x51);
  const group2 = hex(b >>> 12, 4);
  const group3 = `4${hex(b & 0xfff, 3)}`;
  const group4 = hex(0x8000 | (c << 2) | (tail2 >>> 30), 4);
  const group5 = `${hex(tail, 8)}${hex(tail2 & 0xffff, 4)}`;
  return `${hex(a, 8)}-${group2}-${group3}-${group4}-${group5}`;
}
