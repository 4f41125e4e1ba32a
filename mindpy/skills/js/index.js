'use strict'
// The skills library, as one module for the bridge. Python calls run(bot, name, argsJson) once per skill:
// the loops stay on this side. The result is JSON: {ok, interrupted, error, messages}.

const c = require('./common')
const movement = require('./movement')
const gathering = require('./gathering')
const crafting = require('./crafting')
const inventory = require('./inventory')
const combat = require('./combat')
const interaction = require('./interaction')

const SKILLS = {
  goToPosition: movement.goToPosition,
  goToPlayer: movement.goToPlayer,
  followPlayer: movement.followPlayer,
  moveAway: movement.moveAway,
  goToNearestBlock: movement.goToNearestBlock,
  goToNearestEntity: movement.goToNearestEntity,
  goToSurface: movement.goToSurface,
  avoidEntity: movement.avoidEntity,
  stay: movement.stay,
  lookAtPlayer: movement.lookAtPlayer,
  lookAtPosition: movement.lookAtPosition,
  collectBlocks: gathering.collectBlocks,
  breakBlockAt: gathering.breakBlockAt,
  placeBlock: gathering.placeBlock,
  placeHere: gathering.placeHere,
  digDown: gathering.digDown,
  pickupNearbyItems: async (bot, range) => { await gathering.pickupNearbyItems(bot, range); return true },
  craftRecipe: crafting.craftRecipe,
  smeltItem: crafting.smeltItem,
  clearFurnace: crafting.clearFurnace,
  equip: inventory.equip,
  discard: inventory.discard,
  consume: inventory.consume,
  giveToPlayer: inventory.giveToPlayer,
  putInChest: inventory.putInChest,
  takeFromChest: inventory.takeFromChest,
  viewChest: inventory.viewChest,
  attack: combat.attack,
  attackPlayer: combat.attackPlayer,
  goToBed: interaction.goToBed,
  activate: interaction.activate,
  useOn: interaction.useOn,
  showVillagerTrades: interaction.showVillagerTrades,
  tradeWithVillager: interaction.tradeWithVillager
}

// The time limit is kept here, not by the bridge: a bridge call that times out leaves JSPyBridge waiting
// for its answer to be collected, which stalls every later call.
async function run (bot, name, argsJson, timeoutMs = 300000) {
  const skill = SKILLS[name]
  if (!skill) return JSON.stringify({ ok: false, error: `unknown skill ${name}`, messages: [] })
  const st = c.state(bot)
  st.interrupted = false
  st.log = []
  st.running = name
  let timer
  const limit = new Promise((resolve, reject) => {
    timer = setTimeout(() => {
      interrupt(bot)
      reject(new c.SkillFailure(`${name} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`))
    }, timeoutMs)
  })
  try {
    const ok = await Promise.race([skill(bot, ...JSON.parse(argsJson)), limit])
    return JSON.stringify({ ok: ok !== false, interrupted: false, messages: st.log })
  } catch (err) {
    if (err instanceof c.Interrupted) return JSON.stringify({ ok: false, interrupted: true, messages: st.log })
    const message = err instanceof c.SkillFailure ? err.message : `${err.name || 'Error'}: ${err.message}`
    return JSON.stringify({ ok: false, interrupted: false, error: message, messages: st.log })
  } finally {
    clearTimeout(timer)
    st.running = null
  }
}

// Stop whatever the bot is doing: the running skill sees the flag within 100 ms.
function interrupt (bot) {
  const st = c.state(bot)
  st.interrupted = true
  try { if (bot.pathfinder) bot.pathfinder.stop() } catch (e) {}
  try { if (bot.pathfinder) bot.pathfinder.setGoal(null) } catch (e) {}
  try { bot.stopDigging() } catch (e) {}
  try { bot.clearControlStates() } catch (e) {}
  try { if (bot.currentWindow) bot.closeWindow(bot.currentWindow) } catch (e) {}
  return true
}

function setCheat (bot, on) {
  c.state(bot).cheat = !!on
  return true
}

module.exports = { run, interrupt, setCheat, names: () => JSON.stringify(Object.keys(SKILLS)) }
