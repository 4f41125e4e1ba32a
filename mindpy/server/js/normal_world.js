'use strict'
// A generated world shaped like vanilla's since 1.18, for free play: bedrock at y=-64 (rough up to -60),
// deepslate below y=0, stone above, 3-4 dirt under grass, sea level y=62, plains, forests, taiga, hills, beaches,
// lakes and seas, caves (lava in them at y=-55 and below), ores at vanilla's heights, trees and flowers.
// flying-squid calls generateChunk(chunkX, chunkZ) for each column it needs; the result depends on the seed and
// the column's place alone (worldgen/noise.js), so a column comes out the same every time.
const { seedFrom, hash, unit } = require('./worldgen/noise')
const { blockStates, biomeIds } = require('./worldgen/blocks')
const T = require('./worldgen/terrain')
const { placeOres, carveCaves, at, MIN_Y } = require('./worldgen/underground')
const { plantTrees, growPlants } = require('./worldgen/surface')

// prismarine-chunk's section parts, to build whole sections at once (see writeSection)
const BitArray = require('prismarine-chunk/src/pc/common/BitArrayNoSpan')
const { IndirectPaletteContainer } = require('prismarine-chunk/src/pc/common/PaletteContainer')
const { MIN_BITS_PER_BLOCK: MIN_BITS, MAX_BITS_PER_BLOCK: MAX_BITS } = require('prismarine-chunk/src/pc/common/constants')

const WORLD_HEIGHT = 384
const MAX_Y = MIN_Y + WORLD_HEIGHT - 1

function normalWorld (options) {
  const { registry } = options
  const Chunk = require('prismarine-chunk')(registry)
  const s = blockStates(registry)
  const biomes = biomeIds(registry)
  const seed = seedFrom(options.seed ?? 0)
  const terrain = T.terrainNoise(seed)
  const biomeOf = {
    [T.PLAINS]: biomes.plains,
    [T.FOREST]: biomes.forest,
    [T.BIRCH_FOREST]: biomes.birch_forest,
    [T.TAIGA]: biomes.taiga,
    [T.BEACH]: biomes.beach,
    [T.OCEAN]: biomes.ocean,
    [T.DEEP_OCEAN]: biomes.deep_ocean,
    [T.LAKE]: biomes.river
  }
  // light passes through these (leaves dim it a little in vanilla; here not at all)
  const clear = new Set([s.air, s.shortGrass, s.fern, s.dandelion, s.poppy, s.cornflower, s.azureBluet, s.oxeyeDaisy,
    s.oakLeaves, s.birchLeaves, s.spruceLeaves])

  // the solid ground of one column, without caves, ores or plants
  function fillColumn (blocks, x, z, wx, wz, height, kind) {
    const h = hash(seed, wx, 7, wz)
    blocks[at(x, MIN_Y, z)] = s.bedrock
    for (let y = MIN_Y + 1; y <= Math.min(height, MIN_Y + 4); y++) {
      // the bedrock floor's rough top: thinner with each layer up
      blocks[at(x, y, z)] = unit(seed, wx, y, wz) < (MIN_Y + 5 - y) / 5 ? s.bedrock : s.deepslate
    }
    // the topsoil: grass over 3-4 dirt on land, sand at the shore and in shallow water, gravel deeper down
    const soil = 3 + (h & 1)
    let top = s.grass
    let under = s.dirt
    if (kind === T.BEACH || (height < T.SEA_LEVEL && height >= T.SEA_LEVEL - 5)) { top = s.sand; under = s.sand }
    else if (height < T.SEA_LEVEL) { top = (h & 6) === 0 ? s.clay : s.gravel; under = kind === T.LAKE ? s.dirt : s.gravel }
    else if (kind !== T.BEACH) {
      const patch = unit(seed ^ 0x3c6ef372, wx >> 3, 0, wz >> 3) // 8x8 spots, a few of them gravel or sand
      if (patch < 0.015) { top = s.gravel; under = s.gravel } else if (patch > 0.985) { top = s.sand; under = s.sand }
    }
    const sandstoneBelow = top === s.sand ? 3 : 0 // vanilla holds up beach sand with sandstone
    for (let y = MIN_Y + 5; y <= height; y++) {
      let state
      if (y === height) state = top
      else if (y > height - soil) state = under
      else if (y > height - soil - sandstoneBelow) state = s.sandstone
      else if (y < 0) state = s.deepslate
      else if (y < 8) state = unit(seed, wx, y, wz) * 8 < 8 - y ? s.deepslate : s.stone // a blend, as vanilla's
      else state = s.stone
      blocks[at(x, y, z)] = state
    }
    for (let y = height + 1; y <= T.SEA_LEVEL; y++) blocks[at(x, y, z)] = s.water
  }

  return function generateChunk (chunkX, chunkZ) {
    const blocks = new Uint16Array(WORLD_HEIGHT * 256) // 0 is air in every version
    const columns = new Array(256)
    const ceiling = new Int16Array(256)
    const entrances = unit(seed, chunkX, 0x3e7, chunkZ) < 0.3
    for (let z = 0; z < 16; z++) {
      for (let x = 0; x < 16; x++) {
        const wx = chunkX * 16 + x
        const wz = chunkZ * 16 + z
        const column = terrain.column(wx, wz)
        columns[x + 16 * z] = column
        fillColumn(blocks, x, z, wx, wz, column.height, column.kind)
        // caves stay under the soil, well under water, sand and gravel, but open into dry land in some chunks
        const surface = blocks[at(x, column.height, z)]
        const dry = column.height > T.SEA_LEVEL + 2 && surface !== s.sand && surface !== s.gravel
        ceiling[x + 16 * z] = !dry ? column.height - 8 : entrances ? column.height : column.height - 5
      }
    }
    const chunkSeed = hash(seed, chunkX, 0x51ed, chunkZ)
    placeOres(blocks, s, chunkSeed)
    carveCaves(blocks, s, seed, chunkX, chunkZ, ceiling)
    plantTrees(blocks, s, chunkSeed ^ 0x7f4a7c15, columns)
    growPlants(blocks, s, seed ^ 0x2545f491, chunkX, chunkZ, columns)
    return toChunk(blocks, columns)
  }

  function toChunk (blocks, columns) {
    const chunk = new Chunk({ minY: MIN_Y, worldHeight: WORLD_HEIGHT })
    let highest = MIN_Y
    for (let section = 0; section < WORLD_HEIGHT >> 4; section++) {
      const top = writeSection(chunk, section, blocks.subarray(section << 12, (section + 1) << 12))
      if (top >= 0) highest = MIN_Y + (section << 4) + top
    }
    lightColumns(chunk, blocks, highest)
    const pos = { x: 0, y: 0, z: 0 }
    for (let z = 0; z < 16; z += 4) {
      for (let x = 0; x < 16; x += 4) {
        pos.x = x; pos.z = z
        const biome = biomeOf[columns[(x + 2) + 16 * (z + 2)].kind]
        for (pos.y = MIN_Y; pos.y <= MAX_Y; pos.y += 4) chunk.setBiome(pos, biome)
      }
    }
    return chunk
  }

  // One 16x16x16 section from its 4096 states (in the section's own order: y, then z, then x), built as a palette
  // and packed indices at once instead of block by block through chunk.setBlockStateId (which looks each block up
  // in the palette and regrows it: most of the generation's time). The result is the same section, byte for byte:
  // the palette starts with air and grows in index order, as it would. Returns the highest y in it holding a block
  // (0-15), or -1 for all air (the section stays the empty one the column was made with).
  function writeSection (chunk, section, states) {
    let top = -1
    const palette = [0]
    const indexOf = new Map([[0, 0]])
    let solid = 0
    for (let i = 0; i < 4096; i++) {
      const state = states[i]
      if (state === 0) continue
      solid++
      top = i >> 8
      if (!indexOf.has(state)) { indexOf.set(state, palette.length); palette.push(state) }
    }
    if (top < 0) return top
    const bits = Math.max(MIN_BITS, 32 - Math.clz32(palette.length - 1))
    const old = chunk.sections[section]
    if (bits > MAX_BITS) { // more kinds than a palette holds (never generated): the column's own way
      const pos = { x: 0, y: 0, z: 0 }
      for (let i = 0; i < 4096; i++) {
        pos.x = i & 15; pos.y = MIN_Y + (section << 4) + (i >> 8); pos.z = (i >> 4) & 15
        chunk.setBlockStateId(pos, states[i])
      }
      return top
    }
    const data = new BitArray({ bitsPerValue: bits, capacity: 4096 })
    for (let i = 0; i < 4096; i++) if (states[i] !== 0) data.set(i, indexOf.get(states[i]))
    const container = new IndirectPaletteContainer({
      noSizePrefix: old.noSizePrefix, data, palette, maxBits: MAX_BITS, maxBitsPerBlock: old.data.maxBitsPerBlock
    })
    chunk.sections[section] = new old.constructor({
      noSizePrefix: old.noSizePrefix, hasFluidCount: old.hasFluidCount, data: container, solidBlockCount: solid,
      fluidCount: old.hasFluidCount ? countFluids(states) : 0
    })
    return top
  }

  function countFluids (states) {
    let n = 0
    for (let i = 0; i < 4096; i++) if (states[i] === s.water || states[i] === s.lava) n++
    return n
  }

  // Sky light 15 down to each column's highest opaque block (water dims it by one a block), 0 under it: caves are
  // dark, as vanilla's are, for what spawns in the dark. Sections wholly above everything are filled at once.
  function lightColumns (chunk, blocks, highest) {
    const firstFull = ((highest - MIN_Y) >> 4) + 1 // the first 16-block section above every block
    const pos = { x: 0, y: 0, z: 0 }
    for (let section = firstFull; section < WORLD_HEIGHT >> 4; section++) {
      pos.y = MIN_Y + section * 16
      chunk.setSkyLight(pos, 15) // makes the section's light array
      chunk.skyLightSections[section + 1].data.fill(0xffffffff) // index 0 is the section under the world
    }
    const below = MIN_Y + firstFull * 16 - 1
    for (pos.z = 0; pos.z < 16; pos.z++) {
      for (pos.x = 0; pos.x < 16; pos.x++) {
        let light = 15
        for (pos.y = below; pos.y >= MIN_Y && light > 0; pos.y--) {
          const state = blocks[at(pos.x, pos.y, pos.z)]
          if (state === s.water) light--
          else if (!clear.has(state)) break
          chunk.setSkyLight(pos, light)
        }
      }
    }
  }
}

module.exports = normalWorld
