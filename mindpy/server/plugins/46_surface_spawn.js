'use strict'
// Spawning on the surface of a generated world. flying-squid looks for a spawn from y=81 downwards, which in hills
// higher than that starts inside the ground (and in a cave there, spawns the player in it). In the normal world we
// look from the top of the world down to the first block that is neither air nor leaves, and stand on it; over water,
// a few steps east, as flying-squid does. The flat task worlds keep flying-squid's search (their spawns are
// part of the tasks' set-up).
const { Vec3 } = require('vec3')

const TOP_Y = 319
const MIN_Y = -64

module.exports.server = function (serv, settings) {
  if (settings?.mindpy?.world !== 'normal') return
  const registry = serv.registry
  const skip = new Set(registry.blocksArray
    .filter(b => b.boundingBox === 'empty' || b.name.endsWith('_leaves'))
    .map(b => b.id))
  const liquid = new Set(['water', 'lava'].map(n => registry.blocksByName[n].id))

  async function surfaceAt (world, x, z) {
    const pos = new Vec3(x, TOP_Y, z)
    let type = await world.getBlockType(pos)
    while (pos.y > MIN_Y && skip.has(type) && !liquid.has(type)) {
      pos.y--
      type = await world.getBlockType(pos)
    }
    return liquid.has(type) || skip.has(type) ? null : pos.offset(0.5, 1, 0.5)
  }

  serv.once('asap', () => {
    serv.getSpawnPoint = async (world) => {
      const x0 = Math.floor(Math.random() * 30)
      const z0 = Math.floor(Math.random() * 30)
      for (let step = 0; step < 256; step++) {
        const spot = await surfaceAt(world, x0 + step, z0)
        if (spot) return spot
      }
      return new Vec3(x0 + 0.5, TOP_Y, z0 + 0.5) // all sea for 256 blocks: fall into it
    }
  })
}
