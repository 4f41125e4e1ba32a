'use strict'
// Using blocks and items on the world: beds, doors/levers/buttons, tools on targets, villagers.
// A plugin: inject(bot) registers these skills in bot.skills.

const c = require('./common')
const core = require('./core')
const move = require('./movement')

async function goToBed (bot) {
  const bed = c.nearestBlock(bot, Object.keys(bot.registry.blocksByName).filter(n => n.endsWith('_bed')), 32)
  if (!bed) c.fail('There is no bed nearby.')
  await move.goto(bot, new move.goals.GoalLookAtBlock(bed.position, bot.world, { reach: 3 }), 30000)
  try {
    await bot.sleep(bot.blockAt(bed.position))
  } catch (err) {
    c.fail(`Could not sleep: ${err.message}`)
  }
  c.say(bot, 'You are in bed.')
  while (bot.isSleeping) await c.wait(bot, 500)
  c.say(bot, 'You woke up.')
  return true
}

async function activate (bot, type) {
  const block = c.nearestBlock(bot, [type], 16)
  if (!block) c.fail(`There is no ${type} nearby to activate.`)
  if (bot.entity.position.distanceTo(block.position) > 4) {
    await move.goto(bot, new move.goals.GoalLookAtBlock(block.position, bot.world, { reach: 4 }), 30000)
  }
  await bot.activateBlock(bot.blockAt(block.position))
  c.say(bot, `Activated the ${type} at ${c.fmt(block.position)}.`)
  return true
}

// Use a held item on a block (e.g. a hoe on dirt, a bucket on water) or an entity (shears on a sheep).
async function useOn (bot, toolName, target) {
  if (toolName !== 'hand') {
    const tool = c.inventoryItem(bot, toolName)
    if (!tool) c.fail(`You do not have any ${toolName}.`)
    await bot.equip(tool, 'hand')
  }
  const entity = bot.nearestEntity(e => e.name === target && e.position.distanceTo(bot.entity.position) < 24)
  if (entity) {
    await move.goto(bot, new move.goals.GoalFollow(entity, 2), 20000)
    await bot.useOn(entity)
    c.say(bot, `Used ${toolName} on the ${target}.`)
    return true
  }
  // not the block the bot stands on: the server (like placing a block into oneself) ignores a use aimed there
  const under = bot.entity.position.floored().offset(0, -1, 0)
  const block = c.nearestBlock(bot, [target], 24, b => !b.position.equals(under))
  if (!block) c.fail(`There is no ${target} nearby.`)
  if (bot.entity.position.distanceTo(block.position) > 4) {
    await move.goto(bot, new move.goals.GoalLookAtBlock(block.position, bot.world, { reach: 4 }), 30000)
  }
  await bot.lookAt(block.position.offset(0.5, 0.5, 0.5), true)
  await bot.activateBlock(bot.blockAt(block.position))
  c.say(bot, `Used ${toolName} on ${target} at ${c.fmt(block.position)}.`)
  return true
}

async function openVillager (bot, id) {
  const villager = bot.entities[id]
  if (!villager || villager.name !== 'villager') c.fail(`There is no villager with id ${id} nearby. Use !entities to see ids.`)
  if (villager.position.distanceTo(bot.entity.position) > 3) {
    await move.goto(bot, new move.goals.GoalFollow(villager, 2), 20000)
  }
  return bot.openVillager(villager)
}

async function showVillagerTrades (bot, id) {
  const window = await openVillager(bot, id)
  try {
    const lines = window.trades.map((trade, i) => {
      const cost = [trade.inputItem1, trade.inputItem2].filter(Boolean).map(it => `${it.count} ${it.name}`).join(' + ')
      return `${i + 1}: ${cost} -> ${trade.outputItem.count} ${trade.outputItem.name}${trade.tradeDisabled ? ' (sold out)' : ''}`
    })
    c.say(bot, lines.length ? 'Trades:\n' + lines.join('\n') : 'This villager has no trades.')
  } finally {
    window.close()
  }
  return true
}

async function tradeWithVillager (bot, id, index, count = 1) {
  const window = await openVillager(bot, id)
  try {
    const trade = window.trades[index - 1]
    if (!trade) c.fail(`Trade ${index} does not exist; this villager has ${window.trades.length} trades.`)
    await bot.trade(window, index - 1, count)
    c.say(bot, `Traded ${count} time(s) for ${trade.outputItem.name}.`)
  } finally {
    window.close()
  }
  return true
}

function inject (bot) {
  bot.loadPlugin(core.inject)
  bot.skills.register({ goToBed, activate, useOn, showVillagerTrades, tradeWithVillager })
}

module.exports = { inject }
