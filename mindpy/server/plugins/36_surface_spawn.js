'use strict'
// Spawning on the surface of a generated world. flying-squid looks for a spawn from y=81 downwards, which in hills
// higher than that starts inside the ground (and in a cave there, spawns the player in it), and walks east over
// water for as long as the sea lasts. In the normal world we look from the top of the world down to the first block
// that is neither air nor leaves, and stand on it (not on water, nor on a trunk in its leaves). The flat task
// worlds keep flying-squid's search (their spawns are part of the tasks' set-up).
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
  const logs = new Set(registry.blocksArray.filter(b => b.name.endsWith('_log')).map(b => b.id)) // a tree's trunk

  async function surfaceAt (world, x, z) {
    const pos = new Vec3(x, TOP_Y, z)
    let type = await world.getBlockType(pos)
    while (pos.y > MIN_Y && skip.has(type) && !liquid.has(type)) {
      pos.y--
      type = await world.getBlockType(pos)
    }
    return liquid.has(type) || skip.has(type) || logs.has(type) ? null : pos.offset(0.5, 1, 0.5)
  }

  // The world's spawn, found once: the first dry column on a square spiral of chunk centres around (8, 8) (the
  // first one that is land in most worlds; a sea at the origin costs a few columns generated). Every player
  // spawns there, as in vanilla.
  let spawn = null
  async function worldSpawn (world) {
    for (let ring = 0; ring <= 32 && !spawn; ring++) {
      for (let dx = -ring; dx <= ring && !spawn; dx++) {
        for (let dz = -ring; dz <= ring && !spawn; dz++) {
          if (Math.max(Math.abs(dx), Math.abs(dz)) !== ring) continue
          spawn = await surfaceAt(world, 8 + 16 * dx, 8 + 16 * dz)
        }
      }
    }
    return spawn || new Vec3(8.5, TOP_Y, 8.5) // sea for 500 blocks around: swim
  }

  serv.once('asap', () => {
    serv.getSpawnPoint = async (world) => (spawn || await worldSpawn(world)).clone()
  })
}
