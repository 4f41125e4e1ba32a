'use strict'
// Seeded integer hashing and value noise for the generated world. Everything is a pure function of the seed and
// the coordinates, so a chunk comes out the same whenever and in whatever order it is generated.

// 32-bit avalanche hash of a seed and up to three integers (Math.imul keeps it in int32 arithmetic, which V8 runs fast)
function hash (seed, x, y, z) {
  let h = seed ^ Math.imul(x | 0, 0x27d4eb2d) ^ Math.imul(y | 0, 0x165667b1) ^ Math.imul(z | 0, 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d)
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39)
  return (h ^ (h >>> 15)) >>> 0
}

// hash as a number in [0, 1)
function unit (seed, x, y, z) {
  return hash(seed, x, y, z) / 4294967296
}

// A seed from anything given on the command line or in level.dat: numbers keep their int32 value, text is hashed.
function seedFrom (value) {
  if (typeof value === 'number' && Number.isFinite(value)) return value | 0
  let h = 0x811c9dc5
  for (const ch of String(value)) h = Math.imul(h ^ ch.codePointAt(0), 0x01000193)
  return h | 0
}

// Small deterministic generator (mulberry32) for per-chunk choices: tree spots, ore veins.
function rng (seed) {
  let a = seed >>> 0
  return function next () {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const smooth = t => t * t * (3 - 2 * t)

// Value noise in [-1, 1]: random values on the integer lattice, smoothly interpolated.
function noise2 (seed, x, z) {
  const x0 = Math.floor(x)
  const z0 = Math.floor(z)
  const fx = smooth(x - x0)
  const fz = smooth(z - z0)
  const a = unit(seed, x0, 0, z0)
  const b = unit(seed, x0 + 1, 0, z0)
  const c = unit(seed, x0, 0, z0 + 1)
  const d = unit(seed, x0 + 1, 0, z0 + 1)
  const top = a + (b - a) * fx
  const bottom = c + (d - c) * fx
  return (top + (bottom - top) * fz) * 2 - 1
}

function noise3 (seed, x, y, z) {
  const x0 = Math.floor(x)
  const y0 = Math.floor(y)
  const z0 = Math.floor(z)
  const fx = smooth(x - x0)
  const fy = smooth(y - y0)
  const fz = smooth(z - z0)
  const lerp = (p, q, t) => p + (q - p) * t
  const layer = yy => lerp(
    lerp(unit(seed, x0, yy, z0), unit(seed, x0 + 1, yy, z0), fx),
    lerp(unit(seed, x0, yy, z0 + 1), unit(seed, x0 + 1, yy, z0 + 1), fx), fz)
  return lerp(layer(y0), layer(y0 + 1), fy) * 2 - 1
}

// Fractal sum of octaves of noise2 (each octave twice as fine, half as strong), scaled back to about [-1, 1].
function fbm2 (seed, x, z, octaves) {
  let sum = 0
  let amplitude = 1
  let total = 0
  for (let i = 0; i < octaves; i++) {
    sum += noise2(seed + i * 1013, x, z) * amplitude
    total += amplitude
    amplitude /= 2
    x *= 2
    z *= 2
  }
  return sum / total
}

module.exports = { hash, unit, seedFrom, rng, noise2, noise3, fbm2 }
