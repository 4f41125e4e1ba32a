'use strict'
// The shape of the land: for each column, its surface height and its biome. Large, slow noise decides land and sea,
// a second one how hilly a region is, a third the hills themselves; a patchy one sinks lakes into the land.
const { fbm2, noise2 } = require('./noise')

const SEA_LEVEL = 62 // vanilla's: water fills every column up to y=62

// Biome kinds of a column (the generator maps them to the registry's biome ids)
const PLAINS = 0
const FOREST = 1
const TAIGA = 2
const BEACH = 3
const OCEAN = 4
const DEEP_OCEAN = 5
const LAKE = 6
const BIRCH_FOREST = 7

function terrainNoise (seed) {
  const s = k => (seed + Math.imul(k, 0x9e3779b1)) | 0
  const seeds = { land: s(1), hilliness: s(2), hills: s(3), detail: s(4), lake: s(5), cold: s(6), trees: s(7), birch: s(8) }

  // the land before lakes: above SEA_LEVEL is land, below it sea
  function landHeight (x, z) {
    const land = fbm2(seeds.land, x / 480, z / 480, 4) // about -0.6..0.6
    const hilliness = Math.max(0, fbm2(seeds.hilliness, x / 260, z / 260, 2) + 0.1)
    const hills = fbm2(seeds.hills, x / 70, z / 70, 3) + 0.35
    const detail = fbm2(seeds.detail, x / 18, z / 18, 2)
    return 67 + land * 48 + hilliness * hills * 70 + detail * 2.5
  }

  // {height, kind} of the column at world x, z
  function column (x, z) {
    const base = landHeight(x, z)
    let height = base
    const lake = noise2(seeds.lake, x / 56, z / 56)
    if (base > SEA_LEVEL && lake > 0.55) height -= (lake - 0.55) * 60 // a bowl that dips below the sea level
    height = Math.max(-40, Math.min(220, Math.round(height)))
    let kind
    if (height < SEA_LEVEL) {
      kind = base <= SEA_LEVEL ? (height < 44 ? DEEP_OCEAN : OCEAN) : LAKE
    } else if (height <= SEA_LEVEL + 2 && base < SEA_LEVEL + 4) {
      kind = BEACH
    } else if (fbm2(seeds.cold, x / 380, z / 380, 2) < -0.22) {
      kind = TAIGA
    } else if (fbm2(seeds.trees, x / 190, z / 190, 2) > 0.05) {
      kind = noise2(seeds.birch, x / 150, z / 150) > 0.45 ? BIRCH_FOREST : FOREST
    } else {
      kind = PLAINS
    }
    return { height, kind }
  }

  return { column }
}

module.exports = { terrainNoise, SEA_LEVEL, PLAINS, FOREST, TAIGA, BEACH, OCEAN, DEEP_OCEAN, LAKE, BIRCH_FOREST }
