'use strict'
// Fighting mobs and players.
// A plugin: inject(bot) registers these skills in bot.skills.

const c = require('./common')
const core = require('./core')
const move = require('./movement')
const gather = require('./gathering')

const WEAPONS = ['netherite_sword', 'diamond_sword', 'iron_sword', 'stone_sword', 'golden_sword', 'wooden_sword',
  'netherite_axe', 'diamond_axe', 'iron_axe', 'stone_axe', 'golden_axe', 'wooden_axe']

async function equipBestWeapon (bot) {
  for (const name of WEAPONS) {
    const item = c.inventoryItem(bot, name)
    if (item) { await bot.equip(item, 'hand'); return name }
  }
  return null
}

// Hit the entity until it dies or is out of reach; pathfind to it when it moves away.
// A player that dies keeps its entity (it respawns elsewhere): watch for its death, not only for the entity to go.
async function fight (bot, entity, timeoutMs = 60000) {
  let died = false
  const onDead = e => { if (e.id === entity.id) died = true }
  bot.on('entityDead', onDead)
  try {
    return await fightUntil(bot, entity, timeoutMs, () => died)
  } finally {
    bot.removeListener('entityDead', onDead)
  }
}

async function fightUntil (bot, entity, timeoutMs, died) {
  move.ensurePathfinder(bot)
  await equipBestWeapon(bot)
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    c.checkInterrupt(bot)
    const current = bot.entities[entity.id]
    if (!current || !current.isValid || died()) return true
    const distance = current.position.distanceTo(bot.entity.position)
    if (distance > 3) {
      try {
        await move.goto(bot, new move.goals.GoalFollow(current, 2), 15000)
      } catch (err) {
        if (err instanceof c.Interrupted) throw err
        return false
      }
      continue
    }
    await bot.lookAt(current.position.offset(0, current.height * 0.6, 0), true)
    bot.attack(current)
    await c.wait(bot, 650)
  }
  return false
}

async function attack (bot, type, kill = true) {
  const target = bot.nearestEntity(e => e.name === type && e.position.distanceTo(bot.entity.position) < 32)
  if (!target) c.fail(`Could not find any ${type} nearby to attack.`)
  if (!kill) {
    await move.goto(bot, new move.goals.GoalFollow(target, 2), 20000)
    bot.attack(target)
    c.say(bot, `Attacked the ${type}.`)
    return true
  }
  const killed = await fight(bot, target)
  if (!killed) c.fail(`Could not kill the ${type}.`)
  c.say(bot, `Killed the ${type}.`)
  await c.wait(bot, 300)
  await gather.pickupNearbyItems(bot, 8)
  return true
}

async function attackPlayer (bot, name) {
  const target = c.playerEntity(bot, name)
  if (!target) c.fail(`Could not find ${name} to attack.`)
  const killed = await fight(bot, target, 30000)
  c.say(bot, killed ? `Defeated ${name}.` : `Stopped attacking ${name}.`)
  return killed
}

function inject (bot) {
  bot.loadPlugin(core.inject)
  bot.skills.register({ attack, attackPlayer })
}

module.exports = { inject, fight, equipBestWeapon }
