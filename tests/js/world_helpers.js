'use strict'
// Test helpers for the world, animals, crops and food tests: each is one call from Python that uses the
// standard mineflayer API (blockAt, dig, placeBlock, attack, consume, entities, control states) and
// returns JSON text (reading JS objects field by field from Python is slow).

const { Vec3 } = require('vec3')

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

// {name, properties} of the block the bot sees at x y z, or null where its world is not loaded.
function blockJson (bot, x, y, z) {
  const block = bot.blockAt(new Vec3(x, y, z))
  return JSON.stringify(block ? { name: block.name, properties: block.getProperties() } : null)
}

// How many of the (2*dist+1)^2 chunk columns centred on the bot its world has not loaded yet (what
// bot.waitForChunksToLoad waits for, without its fixed 10 s wall-clock limit: the tests wait on the game clock).
function missingColumns (bot, dist = 2) {
  const pos = bot.entity.position
  let missing = 0
  for (let dx = -dist; dx <= dist; dx++) {
    for (let dz = -dist; dz <= dist; dz++) {
      if (!bot.world.getColumnAt(new Vec3(pos.x + 16 * dx, 0, pos.z + 16 * dz))) missing++
    }
  }
  return missing
}

// Entities the bot sees within `radius` blocks: [{id, name, type, x, y, z, distance, onGround}], nearest first.
function entitiesJson (bot, radius = 32) {
  const me = bot.entity.position
  const list = []
  for (const entity of Object.values(bot.entities)) {
    if (entity === bot.entity) continue
    const distance = entity.position.distanceTo(me)
    if (distance > radius) continue
    const { x, y, z } = entity.position
    list.push({ id: entity.id, name: entity.name, type: entity.type, x, y, z, distance, onGround: entity.onGround })
  }
  list.sort((a, b) => a.distance - b.distance)
  return JSON.stringify(list)
}

// Dig the block at x y z with bot.dig; returns the name of the block that was dug.
async function digAt (bot, x, y, z) {
  const block = bot.blockAt(new Vec3(x, y, z))
  if (!block || block.name === 'air') throw new Error(`nothing to dig at ${x} ${y} ${z}`)
  await bot.dig(block, true)
  return block.name
}

// Hold an item by name (from anywhere in the inventory).
async function hold (bot, itemName) {
  const item = bot.inventory.items().find(i => i.name === itemName)
  if (!item) throw new Error(`no ${itemName} in the inventory`)
  await bot.equip(item, 'hand')
}

// Place the held `itemName` on the top face of the block at x y z with bot.placeBlock.
async function placeOnTop (bot, itemName, x, y, z) {
  await hold(bot, itemName)
  const reference = bot.blockAt(new Vec3(x, y, z))
  await bot.lookAt(reference.position.offset(0.5, 1, 0.5), true)
  await bot.placeBlock(reference, new Vec3(0, 1, 0))
}

// Hit the entity with bot.attack every `intervalMs` until the server reports it dead (entity status 3)
// or `maxHits` hits; returns {hits, dead, hurt, times} (hurt: how many hits the server reported as damage;
// times: when each hit was sent, in ms after the first, since a loaded machine can stretch the intervals).
async function attackUntilDead (bot, entityId, maxHits = 20, intervalMs = 550) {
  let dead = false
  let hurt = 0
  const onDead = entity => { if (entity.id === entityId) dead = true }
  const onHurt = entity => { if (entity.id === entityId) hurt++ }
  bot.on('entityDead', onDead)
  bot.on('entityHurt', onHurt)
  let hits = 0
  const times = []
  let start = 0
  try {
    while (!dead && hits < maxHits) {
      const target = bot.entities[entityId]
      if (!target) break
      if (target.position.distanceTo(bot.entity.position) > 3) await walkTo(bot, target.position.x, target.position.z, 2, 3000)
      await bot.lookAt(target.position.offset(0, 0.5, 0), true)
      bot.attack(target)
      if (!times.length) start = Date.now()
      times.push(Date.now() - start)
      hits++
      const until = Date.now() + intervalMs
      while (!dead && Date.now() < until) await sleep(20)
    }
  } finally {
    bot.removeListener('entityDead', onDead)
    bot.removeListener('entityHurt', onHurt)
  }
  return JSON.stringify({ hits, dead, hurt, times })
}

// Use `itemName` on the block at x y z (bot.activateBlock on its top face: tilling, bone meal, doors...).
async function useOnBlock (bot, itemName, x, y, z) {
  if (itemName) await hold(bot, itemName)
  await bot.activateBlock(bot.blockAt(new Vec3(x, y, z)))
}

// Use the held `itemName` on an entity (bot.activateEntity: milking, shearing...).
async function useOn (bot, entityId, itemName) {
  await hold(bot, itemName)
  const target = bot.entities[entityId]
  if (!target) throw new Error(`no entity ${entityId} in sight`)
  await bot.activateEntity(target)
}

// Walk (control states, no pathfinder: the world is flat) until within `near` blocks of x z.
async function walkTo (bot, x, z, near = 0.5, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  const target = () => new Vec3(x, bot.entity.position.y, z)
  try {
    while (bot.entity.position.distanceTo(target()) > near && Date.now() < deadline) {
      await bot.lookAt(target().offset(0, bot.entity.height, 0), true)
      bot.setControlState('forward', true)
      await sleep(50)
    }
  } finally {
    bot.setControlState('forward', false)
  }
  return bot.entity.position.distanceTo(target()) <= near
}

// Walk over every dropped item within `radius` until none is left or `timeoutMs` passes; returns how
// many item entities are still in sight.
async function collectDrops (bot, radius = 8, timeoutMs = 8000) {
  const deadline = Date.now() + timeoutMs
  const items = () => Object.values(bot.entities)
    .filter(e => e.name === 'item' && e.position.distanceTo(bot.entity.position) <= radius)
  while (items().length && Date.now() < deadline) {
    const item = items().sort((a, b) => a.position.distanceTo(bot.entity.position) - b.position.distanceTo(bot.entity.position))[0]
    await walkTo(bot, item.position.x, item.position.z, 0.3, Math.max(0, deadline - Date.now()))
    await sleep(300) // the pickup delay and the collect packet
  }
  return items().length
}

// Eat the item with bot.consume; returns {food, saturation} as the bot sees them afterwards.
async function eat (bot, itemName) {
  await hold(bot, itemName)
  await bot.consume()
  await sleep(100)
  return JSON.stringify({ food: bot.food, saturation: bot.foodSaturation })
}

// Send a chat command and resolve with the first chat/system message that matches `pattern` (a regex
// source), or reject after timeoutMs.
function commandReply (bot, command, pattern, timeoutMs = 5000) {
  const regex = new RegExp(pattern)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      bot.removeListener('messagestr', onMessage)
      reject(new Error(`no reply matching /${pattern}/ to ${command}`))
    }, timeoutMs)
    function onMessage (text) {
      if (!regex.test(text)) return
      clearTimeout(timer)
      bot.removeListener('messagestr', onMessage)
      resolve(text)
    }
    bot.on('messagestr', onMessage)
    bot.chat(command)
  })
}

// Make the item entities the bot knows look as they do between their spawn packet and their metadata packet
// (the stack not known yet); returns how many there were.
function forgetDroppedStacks (bot) {
  const items = Object.values(bot.entities).filter(e => e.name === 'item')
  for (const e of items) e.metadata = []
  return items.length
}

// What the dropped items within `radius` hold, as the bot reads their metadata: ["sand x1", ...] ("?" for an item
// entity whose stack the bot does not know: getDroppedItem throws or gives nothing).
function droppedItemsJson (bot, radius = 8) {
  const me = bot.entity.position
  const held = e => {
    try {
      const item = e.getDroppedItem()
      return item ? `${item.name} x${item.count}` : '?'
    } catch (err) {
      return '?'
    }
  }
  return JSON.stringify(Object.values(bot.entities)
    .filter(e => e.name === 'item' && e.position.distanceTo(me) <= radius).map(held))
}

module.exports = { droppedItemsJson, forgetDroppedStacks, blockJson, missingColumns, entitiesJson, digAt, hold, placeOnTop, attackUntilDead, useOn, useOnBlock, walkTo, collectDrops, eat, commandReply }
