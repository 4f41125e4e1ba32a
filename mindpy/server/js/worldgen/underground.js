'use strict'
// What lies under the surface: blobs of ore, gravel, dirt and other stones, and caves. Each works on the chunk's
// block array (index ((y - MIN_Y) << 8) | (z << 4) | x), and keeps to its chunk: nothing needs a neighbour.
const { rng, noise3 } = require('./noise')

const MIN_Y = -64
const at = (x, y, z) => ((y - MIN_Y) << 8) | (z << 4) | x

// Vanilla's placements since 1.18, roughly: per chunk, `count` blobs of about `size` blocks, their height either
// uniform in [low, high] or triangular (most at the middle, none at the ends). A deepslate_* ore below y=0.
const ORES = [
  { block: 'coal', count: 20, size: 12, low: 0, high: 192, triangle: true },
  { block: 'coal', count: 10, size: 12, low: 136, high: 320 },
  { block: 'iron', count: 10, size: 9, low: -24, high: 56, triangle: true },
  { block: 'iron', count: 10, size: 4, low: -64, high: 72 },
  { block: 'iron', count: 6, size: 9, low: 80, high: 384, triangle: true },
  { block: 'copper', count: 16, size: 10, low: -16, high: 112, triangle: true },
  { block: 'gold', count: 4, size: 9, low: -64, high: 32, triangle: true },
  { block: 'redstone', count: 4, size: 8, low: -64, high: 15 },
  { block: 'redstone', count: 8, size: 8, low: -96, high: -32, triangle: true },
  { block: 'lapis', count: 2, size: 7, low: -32, high: 32, triangle: true },
  { block: 'lapis', count: 4, size: 7, low: -64, high: 64 },
  { block: 'diamond', count: 7, size: 4, low: -144, high: 16, triangle: true }
]
const DEEP = { coal: 'deepCoal', iron: 'deepIron', copper: 'deepCopper', gold: 'deepGold', redstone: 'deepRedstone', lapis: 'deepLapis', diamond: 'deepDiamond' }

// Patches of other stones, soil and gravel in the stone and deepslate, placed before the ores (which then show in
// the stone kinds too, as vanilla's do).
const PATCHES = [
  { block: 'dirt', count: 7, size: 30, low: 0, high: 160 },
  { block: 'gravel', count: 10, size: 30, low: -64, high: 160 },
  { block: 'granite', count: 2, size: 60, low: 0, high: 60 },
  { block: 'diorite', count: 2, size: 60, low: 0, high: 60 },
  { block: 'andesite', count: 2, size: 60, low: 0, high: 60 },
  { block: 'tuff', count: 2, size: 60, low: -64, high: 0 }
]

function heightIn (next, { low, high, triangle }) {
  if (!triangle) return Math.floor(low + next() * (high - low + 1))
  return Math.floor(low + (next() + next()) / 2 * (high - low + 1))
}

// A rough ball of about `size` blocks around height cy, kept inside the chunk; `place(old, y)` says what each of
// its blocks becomes (undefined: it stays as it is, so that ores never float in air or water).
function placeBlob (blocks, next, size, cy, place) {
  const radius = Math.max(0.8, Math.cbrt(size * 3 / (4 * Math.PI)))
  const reach = Math.ceil(radius)
  const cx = reach + Math.floor(next() * (16 - 2 * reach))
  const cz = reach + Math.floor(next() * (16 - 2 * reach))
  const r2 = radius * radius
  for (let y = cy - reach; y <= cy + reach; y++) {
    if (y <= MIN_Y || y >= 320) continue
    for (let z = cz - reach; z <= cz + reach; z++) {
      for (let x = cx - reach; x <= cx + reach; x++) {
        const d2 = (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2
        if (d2 > r2 * (0.55 + 0.45 * next())) continue
        const i = at(x, y, z)
        const state = place(blocks[i], y)
        if (state !== undefined) blocks[i] = state
      }
    }
  }
}

function placeOres (blocks, states, seed) {
  const next = rng(seed)
  const { stone, deepslate } = states
  for (const patch of PATCHES) {
    const state = states[patch.block]
    const place = (old) => (old === stone || old === deepslate) ? state : undefined
    for (let n = 0; n < patch.count; n++) placeBlob(blocks, next, patch.size, heightIn(next, patch), place)
  }
  // ores replace any stone kind, as vanilla's do (granite, diorite, andesite, tuff included)
  const hosts = new Set([stone, deepslate, states.granite, states.diorite, states.andesite, states.tuff])
  for (const ore of ORES) {
    const shallow = states[ore.block]
    const deep = states[DEEP[ore.block]]
    const place = (old, y) => hosts.has(old) ? (old === deepslate || old === states.tuff || y < 0 ? deep : shallow) : undefined
    for (let n = 0; n < ore.count; n++) placeBlob(blocks, next, ore.size, heightIn(next, ore), place)
  }
}

const LAVA_LEVEL = -55 // caves at and below it hold lava, as vanilla's deep aquifers do
const CELL = 4 // the cave noise is sampled every CELL blocks and interpolated between (16 / CELL + 1 points a side)

// Caves: tunnels where two 3D noises are both near zero (their zero surfaces cross along winding lines), and
// rooms where a third is high, deep down. `ceiling[x + 16 z]` is the highest y a column lets a cave reach (below
// its surface, and well below any water or sand so that the sea does not pour in and sand does not float).
function carveCaves (blocks, states, seed, chunkX, chunkZ, ceiling) {
  let top = MIN_Y
  for (const c of ceiling) top = Math.max(top, c)
  if (top <= MIN_Y + 4) return
  const ny = Math.floor((top - MIN_Y) / CELL) + 2 // one above the top, to interpolate up to it
  const side = 16 / CELL + 1
  const sample = new Float32Array(side * side * ny)
  const s1 = seed ^ 0x5bd1e995
  const s2 = seed ^ 0x1b873593
  const s3 = seed ^ 0x68e31da4
  for (let gy = 0; gy < ny; gy++) {
    const y = MIN_Y + gy * CELL
    for (let gz = 0; gz < side; gz++) {
      const z = chunkZ * 16 + gz * CELL
      for (let gx = 0; gx < side; gx++) {
        const x = chunkX * 16 + gx * CELL
        const a = noise3(s1, x / 40, y / 22, z / 40)
        const b = noise3(s2, x / 40, y / 22, z / 40)
        let open = 0.015 - (a * a + b * b) // > 0 inside a tunnel
        if (y < 30) open = Math.max(open, (noise3(s3, x / 70, y / 30, z / 70) - 0.62) * 0.1) // a room
        sample[(gy * side + gz) * side + gx] = open
      }
    }
  }
  const { air, lava, bedrock, water } = states
  for (let z = 0; z < 16; z++) {
    const gz = z >> 2
    const fz = (z & 3) / CELL
    for (let x = 0; x < 16; x++) {
      const gx = x >> 2
      const fx = (x & 3) / CELL
      const limit = ceiling[x + 16 * z]
      // the column's value at each sample height, interpolated across x and z once
      const column = new Float32Array(ny)
      for (let gy = 0; gy < ny; gy++) {
        const row = gy * side
        const v00 = sample[(row + gz) * side + gx]
        const v10 = sample[(row + gz) * side + gx + 1]
        const v01 = sample[(row + gz + 1) * side + gx]
        const v11 = sample[(row + gz + 1) * side + gx + 1]
        const near = v00 + (v10 - v00) * fx
        const far = v01 + (v11 - v01) * fx
        column[gy] = near + (far - near) * fz
      }
      for (let y = MIN_Y + 2; y <= limit; y++) {
        const gy = (y - MIN_Y) >> 2
        const fy = ((y - MIN_Y) & 3) / CELL
        const open = column[gy] + (column[gy + 1] - column[gy]) * fy
        if (open <= 0) continue
        const i = at(x, y, z)
        const old = blocks[i]
        if (old === bedrock || old === water || old === air) continue
        blocks[i] = y <= LAVA_LEVEL ? lava : air
      }
    }
  }
}

module.exports = { placeOres, carveCaves, at, MIN_Y, LAVA_LEVEL }
