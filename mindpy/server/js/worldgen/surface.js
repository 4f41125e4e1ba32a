'use strict'
// What grows on the surface: trees (oak, birch, spruce) and short plants. A tree's trunk stands at least two
// blocks from the chunk's edges, so its leaves (two blocks around the trunk at most) stay in its own chunk.
const { rng, unit } = require('./noise')
const { at } = require('./underground')
const T = require('./terrain')

// trees tried per chunk, by the biome of the spot tried
const TREES_PER_CHUNK = { [T.FOREST]: 9, [T.BIRCH_FOREST]: 9, [T.TAIGA]: 7, [T.PLAINS]: 0.4 }

function setIfAir (blocks, air, x, y, z, state) {
  if (x < 0 || x > 15 || z < 0 || z > 15 || y >= 320) return
  const i = at(x, y, z)
  if (blocks[i] === air) blocks[i] = state
}

// oak and birch: a trunk, two wide layers of leaves around its top and two narrow ones above (corners left out
// at random, as vanilla's are)
function broadleaf (blocks, s, next, x, y, z, trunk, log, leaves) {
  const top = y + trunk - 1
  for (let dy = -2; dy <= 1; dy++) {
    const r = dy <= -1 ? 2 : 1
    for (let dz = -r; dz <= r; dz++) {
      for (let dx = -r; dx <= r; dx++) {
        const corner = Math.abs(dx) === r && Math.abs(dz) === r
        if (corner && (dy === 1 || next() < 0.5)) continue
        setIfAir(blocks, s.air, x + dx, top + dy, z + dz, leaves)
      }
    }
  }
  for (let h = 0; h < trunk; h++) blocks[at(x, y + h, z)] = log
}

// spruce: a tall trunk in rings of leaves that narrow towards a pointed top
function spruce (blocks, s, x, y, z, trunk) {
  const top = y + trunk - 1
  for (let ly = top + 1; ly >= y + 2; ly--) {
    const k = top + 1 - ly // 0 at the tip
    const r = k === 0 ? 0 : k <= 2 ? 1 : (k % 2 === 1 ? 2 : 1)
    for (let dz = -r; dz <= r; dz++) {
      for (let dx = -r; dx <= r; dx++) {
        if (r > 0 && Math.abs(dx) === r && Math.abs(dz) === r) continue
        setIfAir(blocks, s.air, x + dx, ly, z + dz, s.spruceLeaves)
      }
    }
  }
  for (let h = 0; h < trunk; h++) blocks[at(x, y + h, z)] = s.spruceLog
}

// the y of grass at the top of column (x, z) with air above it, or null
function grassTop (blocks, s, x, z, height) {
  if (height < T.SEA_LEVEL || height >= 300) return null
  if (blocks[at(x, height, z)] !== s.grass || blocks[at(x, height + 1, z)] !== s.air) return null
  return height
}

function plantTrees (blocks, s, seed, columns) {
  const next = rng(seed)
  const spot = columns[8 + 16 * 8]
  const tries = TREES_PER_CHUNK[spot.kind] || 0
  const count = Math.floor(tries) + (next() < tries % 1 ? 1 : 0)
  for (let n = 0; n < count; n++) {
    const x = 2 + Math.floor(next() * 12)
    const z = 2 + Math.floor(next() * 12)
    const { height, kind } = columns[x + 16 * z]
    const y = grassTop(blocks, s, x, z, height)
    if (y === null || blocks[at(x, y + 1, z)] !== s.air || blocks[at(x, y + 2, z)] !== s.air) continue
    // no trunk right beside another
    let crowded = false
    for (let dz = -1; dz <= 1 && !crowded; dz++) {
      for (let dx = -1; dx <= 1; dx++) if (blocks[at(x + dx, y + 1, z + dz)] !== s.air) crowded = true
    }
    if (crowded) continue
    blocks[at(x, y, z)] = s.dirt // vanilla leaves dirt under a trunk
    if (kind === T.TAIGA) spruce(blocks, s, x, y + 1, z, 6 + Math.floor(next() * 4))
    else if (kind === T.BIRCH_FOREST || (kind === T.FOREST && next() < 0.25)) {
      broadleaf(blocks, s, next, x, y + 1, z, 5 + Math.floor(next() * 3), s.birchLog, s.birchLeaves)
    } else broadleaf(blocks, s, next, x, y + 1, z, 4 + Math.floor(next() * 3), s.oakLog, s.oakLeaves)
  }
}

// short grass, ferns and flowers on free grass, more in the open than under trees
function growPlants (blocks, s, seed, chunkX, chunkZ, columns) {
  const flowers = [s.dandelion, s.poppy, s.azureBluet, s.oxeyeDaisy, s.cornflower]
  for (let z = 0; z < 16; z++) {
    for (let x = 0; x < 16; x++) {
      const { height, kind } = columns[x + 16 * z]
      const y = grassTop(blocks, s, x, z, height)
      if (y === null) continue
      const r = unit(seed, chunkX * 16 + x, 0, chunkZ * 16 + z)
      let plant = null
      if (kind === T.TAIGA) plant = r < 0.07 ? s.fern : r < 0.12 ? s.shortGrass : null
      else if (kind === T.PLAINS) plant = r < 0.16 ? s.shortGrass : r < 0.19 ? flowers[Math.floor((r - 0.16) / 0.006)] : null
      else plant = r < 0.08 ? s.shortGrass : r < 0.095 ? flowers[Math.floor((r - 0.08) / 0.003)] : null
      if (plant !== null && plant !== undefined) blocks[at(x, y + 1, z)] = plant
    }
  }
}

module.exports = { plantTrees, growPlants }
