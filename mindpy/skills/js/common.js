'use strict'
// Shared helpers of the skills: the per-bot skill state (interrupt flag, message log), waiting that
// can be interrupted, and name lookups. Each skill reports what it did through say(): those messages
// are the command output the model reads.

const { Vec3 } = require('vec3')

class Interrupted extends Error {
  constructor () { super('interrupted'); this.name = 'Interrupted' }
}

class SkillFailure extends Error {
  constructor (message) { super(message); this.name = 'SkillFailure' }
}

function state (bot) {
  if (!bot.mindpy) bot.mindpy = { interrupted: false, log: [], places: {} }
  return bot.mindpy
}

function say (bot, message) {
  state(bot).log.push(String(message))
  reported(bot)
}

// A count that only grows, of what the skills reported (each message, each skill call's end, failed ones too): the
// unstuck mode reads it as progress, so a builder placing a wall from one spot, or a build code trying block after
// block, is not moved away.
function reported (bot) {
  const st = state(bot)
  st.reports = (st.reports || 0) + 1
}

function fail (message) {
  throw new SkillFailure(message)
}

function checkInterrupt (bot) {
  if (state(bot).interrupted) throw new Interrupted()
}

function sleep (ms) {
  return new Promise(resolve => setTimeout(resolve, ms))
}

// Sleep in slices so an interrupt ends the wait within 100 ms.
async function wait (bot, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    checkInterrupt(bot)
    await sleep(Math.min(100, end - Date.now()))
  }
  checkInterrupt(bot)
}

// Race a promise against the interrupt flag; `onInterrupt` cancels the underlying work.
function interruptible (bot, promise, onInterrupt) {
  return new Promise((resolve, reject) => {
    let done = false
    const timer = setInterval(() => {
      if (!done && state(bot).interrupted) {
        done = true
        clearInterval(timer)
        try { onInterrupt && onInterrupt() } catch (e) {}
        reject(new Interrupted())
      }
    }, 50)
    promise.then(value => {
      if (done) return
      done = true
      clearInterval(timer)
      resolve(value)
    }, err => {
      if (done) return
      done = true
      clearInterval(timer)
      reject(err)
    })
  })
}

function itemByName (bot, name) {
  const item = bot.registry.itemsByName[name]
  if (!item) fail(`There is no item called '${name}'.`)
  return item
}

function blockByName (bot, name) {
  const block = bot.registry.blocksByName[name]
  if (!block) fail(`There is no block called '${name}'.`)
  return block
}

function countItem (bot, name) {
  let total = 0
  for (const item of bot.inventory.items()) if (item.name === name) total += item.count
  return total
}

function inventoryItem (bot, name) {
  return bot.inventory.items().find(item => item.name === name) || null
}

function fmt (pos) {
  return `x: ${Math.floor(pos.x)}, y: ${Math.floor(pos.y)}, z: ${Math.floor(pos.z)}`
}

function playerEntity (bot, name) {
  const player = bot.players[name]
  if (!player || !player.entity) return null
  return player.entity
}

// How far from the bot its world is loaded, in blocks (the farthest loaded chunk column, plus one).
function loadedRadius (bot) {
  const me = bot.entity.position
  let farthest = 0
  for (const { chunkX, chunkZ } of bot.world.getColumns()) {
    farthest = Math.max(farthest, Math.abs(Number(chunkX) * 16 + 8 - me.x), Math.abs(Number(chunkZ) * 16 + 8 - me.z))
  }
  return farthest + 16
}

// bot.findBlocks walks every chunk section within the range, loaded or not, and blocks Node while it does (a
// range of 512 took over 0.4 s on an idle machine and most of a minute on a loaded one, stalling every bot of
// the process): the range is cut to where the world is loaded, beyond which nothing can be found anyway.
function nearestBlock (bot, names, range = 32, filter = null) {
  const ids = names.map(n => bot.registry.blocksByName[n]?.id).filter(id => id !== undefined)
  if (!ids.length) return null
  const positions = bot.findBlocks({ matching: ids, maxDistance: Math.min(range, loadedRadius(bot)), count: 64 })
  for (const pos of positions) {
    const block = bot.blockAt(pos)
    if (block && (!filter || filter(block))) return block
  }
  return null
}

module.exports = {
  Vec3,
  Interrupted,
  SkillFailure,
  state,
  say,
  reported,
  fail,
  checkInterrupt,
  sleep,
  wait,
  interruptible,
  itemByName,
  blockByName,
  countItem,
  inventoryItem,
  fmt,
  playerEntity,
  nearestBlock
}
