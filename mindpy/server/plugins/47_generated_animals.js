'use strict'
// Animals in the normal world: as vanilla does when it makes a chunk, one column in ten that the generator makes
// (chosen by the seed, as are the herd's kind, size and places) gets a herd of 2-4 animals of its biome on its
// grass (cows, sheep, pigs and chickens; rabbits and sheep in taiga). Columns read back from a world folder get
// none (flying-squid keeps no entities across restarts: a kept world has animals only in the columns it generates
// afresh). The herds' animals are at most a quarter of max-entities; past that, one far from every player (beyond
// 96 blocks) makes room, else the new column gets no herd.
const { Vec3 } = require('vec3')
const { hash, rng, seedFrom } = require('../js/worldgen/noise')

const HERD_CHANCE = 0.1
const FAR = 96
const HERDS = {
  plains: ['cow', 'sheep', 'pig', 'chicken'],
  forest: ['pig', 'chicken', 'cow', 'sheep'],
  birch_forest: ['pig', 'chicken', 'cow', 'sheep'],
  taiga: ['rabbit', 'sheep']
}

module.exports.server = function (serv, settings) {
  if (settings?.mindpy?.world !== 'normal') return
  const registry = serv.registry
  const grass = registry.blocksByName.grass_block.id
  const cap = Math.floor((settings['max-entities'] || 200) / 4)
  const herded = new Set() // live animals of the herds
  const fresh = [] // [chunkX, chunkZ] of columns just generated
  let seed = 0 // herds are the seed's too: the same world has the same herds (until the cap is reached)

  // flying-squid makes the overworld right after it announces the seed: note each column its generator makes
  serv.once('seed', worldSeed => process.nextTick(() => {
    seed = seedFrom(worldSeed)
    const world = serv.overworld
    const generate = world.chunkGenerator
    world.chunkGenerator = (chunkX, chunkZ) => {
      const column = generate(chunkX, chunkZ)
      fresh.push([chunkX, chunkZ])
      return column
    }
  }))

  // the ground under air, plants and leaves
  const above = new Set(registry.blocksArray.filter(b => b.boundingBox === 'empty' || b.name.endsWith('_leaves'))
    .map(b => b.id))
  function surface (column, x, z) {
    const pos = new Vec3(x, 319, z)
    while (pos.y > -64 && above.has(column.getBlockType(pos))) pos.y--
    return pos
  }

  function makeRoom () {
    for (const animal of herded) if (!serv.mindpyMobs.has(animal)) herded.delete(animal) // killed
    if (herded.size < cap) return true
    const players = serv.players.filter(p => p.world === serv.overworld)
    for (const animal of herded) {
      if (players.some(p => p.position.distanceTo(animal.position) < FAR)) continue
      herded.delete(animal)
      serv.mindpyRemoveMob(animal) // nobody is near enough to see it go
      return true
    }
    return false
  }

  function herd (chunkX, chunkZ) {
    const world = serv.overworld
    const column = world.getLoadedColumn(chunkX, chunkZ)
    const next = rng(hash(seed, chunkX, 0x4e7d, chunkZ))
    if (!column || next() >= HERD_CHANCE || !serv.mindpySpawnMob) return
    const centre = surface(column, 8, 8)
    const biome = registry.biomes[column.getBiome(centre)]?.name
    const kinds = HERDS[biome]
    if (!kinds || column.getBlockType(centre) !== grass) return
    const kind = kinds[Math.floor(next() * kinds.length)]
    const size = 2 + Math.floor(next() * 3)
    for (let n = 0; n < size && makeRoom(); n++) {
      const spot = surface(column, 5 + Math.floor(next() * 7), 5 + Math.floor(next() * 7))
      if (column.getBlockType(spot) !== grass) continue
      const at = new Vec3(chunkX * 16 + spot.x + 0.5, spot.y + 1, chunkZ * 16 + spot.z + 0.5)
      herded.add(serv.mindpySpawnMob(kind, world, at))
    }
  }

  // off the generator's call: the column is stored by then, and a herd's spawn packets go out with the tick
  setInterval(() => {
    for (const [chunkX, chunkZ] of fresh.splice(0)) herd(chunkX, chunkZ)
  }, 250).unref()
}
