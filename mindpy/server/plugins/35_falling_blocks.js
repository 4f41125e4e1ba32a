'use strict'
// Sand and gravel fall: when the block under one becomes air (dug, burnt, moved), or one is placed over air, it
// drops to the first solid block below. The drop is instant: the block disappears and reappears where it lands in
// the same tick, without vanilla's falling_block entity (a bot sees the same end state; an entity per grain would
// cost more than it shows). A column of sand settles grain by grain, each move waking the one above.
// It rides on flying-squid's block updates (serv.setBlock queues them for the changed block and its neighbours),
// so it does nothing until a block changes: the task worlds' bulk fills (plugins/30_commands.js) never wake it.

const FALLING = ['sand', 'red_sand', 'gravel']
const MIN_Y = -64

module.exports.server = function (serv) {
  const registry = serv.registry
  // what a falling block passes through and replaces: air, water, lava, plants, torches (no collision box)
  const passable = new Set(registry.blocksArray.filter(b => b.boundingBox === 'empty').map(b => b.id))

  async function fall (world, block) {
    const pos = block.position
    let landing = pos.offset(0, -1, 0)
    if (landing.y < MIN_Y || !passable.has(await world.getBlockType(landing))) return false
    while (landing.y - 1 >= MIN_Y && passable.has(await world.getBlockType(landing.offset(0, -1, 0)))) {
      landing = landing.offset(0, -1, 0)
    }
    await serv.setBlock(world, pos, 0)
    await serv.setBlock(world, landing, block.stateId)
    return false // serv.setBlock has told the players and queued the neighbours' updates already
  }

  // flying-squid defines serv.onBlockUpdate after our plugins load
  serv.once('asap', () => {
    for (const name of FALLING) if (registry.blocksByName[name]) serv.onBlockUpdate(name, fall)
  })
}
