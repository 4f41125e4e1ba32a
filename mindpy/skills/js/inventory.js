'use strict'
// Items in hand and inventory: equip, discard, eat, give to players, chests.
// A plugin: inject(bot) registers these skills in bot.skills.

const c = require('./common')
const core = require('./core')
const move = require('./movement')
const { droppedItem } = require('../../world/js/queries')

async function equip (bot, name) {
  const item = c.inventoryItem(bot, name)
  if (!item) c.fail(`You do not have any ${name} to equip.`)
  let destination = 'hand'
  if (name.endsWith('_helmet')) destination = 'head'
  else if (name.endsWith('_chestplate') || name === 'elytra') destination = 'torso'
  else if (name.endsWith('_leggings')) destination = 'legs'
  else if (name.endsWith('_boots')) destination = 'feet'
  else if (name === 'shield') destination = 'off-hand'
  await bot.equip(item, destination)
  c.say(bot, `Equipped ${name}.`)
  return true
}

async function discard (bot, name, num = -1) {
  const have = c.countItem(bot, name)
  if (!have) c.fail(`You do not have any ${name} to discard.`)
  const count = num < 0 ? have : Math.min(num, have)
  await moveAwayFromPeople(bot)
  await bot.toss(c.itemByName(bot, name).id, null, count)
  c.say(bot, `Discarded ${count} ${name}.`)
  return true
}

// Turn away from other players so tossed items are not picked up by them by accident.
async function moveAwayFromPeople (bot) {
  const me = bot.entity.position
  const near = bot.nearestEntity(e => e.type === 'player' && e !== bot.entity && e.position.distanceTo(me) < 12)
  if (!near) return
  if (near.position.distanceTo(me) < 4) {
    try {
      await move.goto(bot, new move.goals.GoalInvert(new move.goals.GoalFollow(near, 4)), 5000)
    } catch (err) {
      if (err instanceof c.Interrupted) throw err
    }
  }
  // mineflayer's yaw looking from here towards (x, z) is atan2(-dx, -dz): look the opposite way
  const here = bot.entity.position
  const yaw = Math.atan2(near.position.x - here.x, near.position.z - here.z)
  await bot.look(yaw, 0, true)
}

async function consume (bot, name) {
  const item = c.inventoryItem(bot, name)
  if (!item) c.fail(`You do not have any ${name} to eat or drink.`)
  await bot.equip(item, 'hand')
  try {
    await c.interruptible(bot, bot.consume(), () => bot.deactivateItem())
  } catch (err) {
    if (err instanceof c.Interrupted) throw err
    c.fail(`Could not consume ${name}: ${err.message}`)
  }
  c.say(bot, `Consumed ${name}.`)
  return true
}

// Walk to a player, toss the items, and watch whether they pick them up. A toss can land out of the
// receiver's reach (it moved, or stands where the item rolls off): then take the items back and toss them
// again from closer; when that fails too, take them back for good.
async function givePlayer (bot, playerName, name, num = 1) {
  if (playerName === bot.username) c.fail('You cannot give items to yourself.')
  const have = c.countItem(bot, name)
  if (!have) c.fail(`You do not have any ${name} to give.`)
  const count = Math.min(num, have)
  if (!c.playerEntity(bot, playerName)) c.fail(`Could not find ${playerName}: they are not nearby or not online.`)
  let received = 0
  let target = null
  const state = { caughtBy: new Set(), mine: new Set() }  // who else picked the toss up; the tossed items' ids
  for (const range of [2, 1]) {
    const toss = Math.min(count - received, c.countItem(bot, name) - (have - count))  // never more than asked
    if (toss <= 0) break
    target = await approach(bot, playerName, range)
    received += await tossAndWatch(bot, playerName, name, toss, state)
    if (received >= count) {
      c.say(bot, `${playerName} received ${count} ${name}.`)
      return true
    }
    // a short toss is caught again by the giver after 2 s; a long one must be fetched
    const holding = c.countItem(bot, name)
    if (range === 2 && holding < have - received) {
      await fetchOwnDrops(bot, state, holding, () => c.countItem(bot, name), 3000)
    }
  }
  const got = received ? `they picked up only ${received}` : 'they did not pick them up'
  // what was tossed and neither caught nor taken back lies on the ground: fetch it, so that the items are not lost
  // to the team (the giver can try again, or give them to someone else)
  const lost = () => have - received - c.countItem(bot, name)  // tossed, neither caught nor back in hand
  if (!state.caughtBy.size && lost() > 0) {
    await fetchOwnDrops(bot, state, c.countItem(bot, name), () => c.countItem(bot, name), 8000)
  }
  // where the items lie, not where the receiver stood: a toss flies on past a receiver who moved away
  const lying = ownDrops(bot, state)[0]
  const where = state.caughtBy.size ? `${[...state.caughtBy].join(' and ')} picked them up instead`
    : lost() > 0 ? `${lost()} are on the ground near ${c.fmt((lying || target).position)}`
      : `I have them back`
  c.say(bot, `Tossed ${count} ${name} to ${playerName}, but ${got}; ${where}.`)
  return false
}

// The item entities of this give's tosses still lying in the world, nearest first.
function ownDrops (bot, state) {
  const here = bot.entity.position
  return [...state.mine].map(id => bot.entities[id]).filter(e => e && e.isValid !== false)
    .sort((a, b) => a.position.distanceTo(here) - b.position.distanceTo(here))
}

// Walk to this give's own tossed items until one is back in hand (or `ms` pass). Only our own toss counts:
// near a kitchen or a kill other drops lie about, and walking to them fetches nothing of ours.
async function fetchOwnDrops (bot, state, before, countItems, ms) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline && countItems() <= before) {
    const drop = ownDrops(bot, state)[0]
    if (!drop) break
    try {
      const p = drop.position
      await move.goto(bot, new move.goals.GoalNear(p.x, p.y, p.z, 0.5), Math.max(500, Math.min(4000, deadline - Date.now())))
    } catch (err) {
      if (err instanceof c.Interrupted) throw err
    }
    await c.wait(bot, 100)
  }
  return countItems() > before
}

async function approach (bot, playerName, range) {
  await move.goto(bot, new move.goals.GoalFollow(c.playerEntity(bot, playerName), range), 60000)
  const target = c.playerEntity(bot, playerName)
  if (!target) c.fail(`${playerName} went out of sight.`)
  await bot.lookAt(target.position.offset(0, target.height * 0.2, 0), true)  // low: the toss lands at their feet, not past them
  await c.sleep(100)
  return target
}

// Where a toss appears: at the thrower's eyes, less 0.3 (the server spawns the item there)
const TOSS_HEIGHT = 1.32
const TOSS_SPOT_RADIUS = 0.6  // another player's toss spawns at least about a body width away

// Toss `count` items towards the player being looked at; how many they picked up within 5 s. Only the items of
// this toss count: when several agents give the same item at once (a team handing its bricks to one crafter),
// a collect of someone else's toss must not pass for ours, or be reported as ours caught by a bystander.
async function tossAndWatch (bot, playerName, name, count, state) {
  let received = 0
  const spot = bot.entity.position.offset(0, TOSS_HEIGHT, 0)
  const mine = state.mine  // ids of the item entities this give's tosses spawned
  const onSpawn = (entity) => {
    if (entity.name === 'item' && entity.position.distanceTo(spot) < TOSS_SPOT_RADIUS) mine.add(entity.id)
  }
  const onCollect = (collector, collected) => {
    if (!collector || !mine.has(collected.id)) return
    const dropped = droppedItem(collected)
    if (collector.username === playerName) received += dropped ? dropped.count : 1
    else if (collector.username && collector !== bot.entity) state.caughtBy.add(collector.username)
  }
  bot.on('entitySpawn', onSpawn)
  bot.on('playerCollect', onCollect)
  try {
    await bot.toss(c.itemByName(bot, name).id, null, count)
    const deadline = Date.now() + 5000
    while (received < count && Date.now() < deadline) await c.wait(bot, 100)
  } finally {
    bot.removeListener('entitySpawn', onSpawn)
    bot.removeListener('playerCollect', onCollect)
  }
  return received
}

async function openNearestChest (bot, range = 32) {
  const chest = c.nearestBlock(bot, ['chest', 'trapped_chest', 'barrel'], range)
  if (!chest) c.fail(`There is no chest within ${range} blocks.`)
  if (bot.entity.position.distanceTo(chest.position) > 4) {
    await move.goto(bot, new move.goals.GoalLookAtBlock(chest.position, bot.world, { reach: 4 }), 30000)
  }
  return bot.openContainer(bot.blockAt(chest.position))
}

function containerCounts (container) {
  const counts = {}
  for (const item of container.containerItems()) counts[item.name] = (counts[item.name] || 0) + item.count
  return counts
}

async function putInChest (bot, name, num = -1) {
  const have = c.countItem(bot, name)
  if (!have) c.fail(`You do not have any ${name} to put in the chest.`)
  const count = num < 0 ? have : Math.min(num, have)
  const chest = await openNearestChest(bot)
  try {
    await chest.deposit(c.itemByName(bot, name).id, null, count)
  } finally {
    chest.close()
  }
  c.say(bot, `Put ${count} ${name} in the chest.`)
  return true
}

async function takeFromChest (bot, name, num = -1) {
  const chest = await openNearestChest(bot)
  let count
  try {
    const inChest = containerCounts(chest)[name] || 0
    if (!inChest) c.fail(`The chest has no ${name}.`)
    count = num < 0 ? inChest : Math.min(num, inChest)
    await chest.withdraw(c.itemByName(bot, name).id, null, count)
  } finally {
    chest.close()
  }
  c.say(bot, `Took ${count} ${name} from the chest.`)
  return true
}

async function viewChest (bot) {
  const chest = await openNearestChest(bot)
  try {
    const counts = containerCounts(chest)
    const lines = Object.entries(counts).map(([n, k]) => `- ${n}: ${k}`)
    c.say(bot, lines.length ? 'CHEST CONTENTS:\n' + lines.join('\n') : 'The chest is empty.')
  } finally {
    chest.close()
  }
  return true
}

function inject (bot) {
  bot.loadPlugin(core.inject)
  bot.skills.register({ equip, discard, consume, givePlayer, putInChest, takeFromChest, viewChest })
}

module.exports = { inject }
