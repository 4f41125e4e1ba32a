'use strict'
const { Vec3 } = require('vec3')
// A superflat world shaped like vanilla's since 1.18: bedrock at y=-64, two layers of dirt,
// grass on top at y=-61, so players stand at y=-60 (MineCollab blueprints use these heights).
// flying-squid's own "superflat" puts bedrock at y=0 over void, which breaks absolute coordinates.

const BEDROCK_Y = -64
const GRASS_Y = -61

// A column as generated, which nothing has changed since, has `mindpyPristine` true: all such columns are alike but
// for their place, so the server serializes their packet once (plugins/06_column_packets.js). Every method of the
// column class that can change it (set..., load..., initialize) clears the mark.
function clearMarkOnChange (Chunk) {
  for (let proto = Chunk.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (!/^(set|load|_load|initialize)/.test(name)) continue
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)
      if (typeof descriptor.value !== 'function') continue
      const original = descriptor.value
      proto[name] = function (...args) {
        this.mindpyPristine = false
        return original.apply(this, args)
      }
    }
  }
}

function flatWorld (options) {
  const { registry } = options
  const Chunk = require('prismarine-chunk')(registry)
  clearMarkOnChange(Chunk)
  const bedrock = registry.blocksByName.bedrock.defaultState
  const dirt = registry.blocksByName.dirt.defaultState
  // grass_block's default state is snowy=false
  const grass = registry.blocksByName.grass_block.defaultState
  const biome = registry.biomesByName[options.biome || 'plains'].id

  return function generateChunk () {
    const chunk = new Chunk({ minY: -64, worldHeight: 384 })
    const pos = new Vec3(0, 0, 0)
    for (pos.x = 0; pos.x < 16; pos.x++) {
      for (pos.z = 0; pos.z < 16; pos.z++) {
        for (pos.y = BEDROCK_Y; pos.y <= GRASS_Y; pos.y++) {
          const state = pos.y === BEDROCK_Y ? bedrock : pos.y === GRASS_Y ? grass : dirt
          chunk.setBlockStateId(pos, state)
        }
        for (pos.y = GRASS_Y + 1; pos.y < 320; pos.y += 1) chunk.setSkyLight(pos, 15)
        for (pos.y = BEDROCK_Y; pos.y < 320; pos.y += 4) chunk.setBiome(pos, biome)
      }
    }
    chunk.mindpyPristine = true
    return chunk
  }
}

module.exports = flatWorld
