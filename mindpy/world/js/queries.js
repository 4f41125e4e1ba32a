'use strict'
// Observations of the world around a bot, each one call returning JSON text.

function round1 (v) { return Math.round(v * 10) / 10 }

function statsJson (bot) {
  const pos = bot.entity.position
  const block = bot.blockAt(pos.floored())
  const biomeId = block ? block.biome?.id : undefined
  const biome = biomeId !== undefined ? bot.registry.biomes[biomeId]?.name : undefined
  const players = Object.values(bot.players)
    .filter(p => p.username !== bot.username && p.entity && p.entity.position.distanceTo(pos) <= 64)
    .map(p => p.username)
  const held = bot.heldItem ? bot.heldItem.name : null
  return JSON.stringify({
    position: { x: round1(pos.x), y: round1(pos.y), z: round1(pos.z) },
    gamemode: bot.game.gameMode,
    health: bot.health,
    hunger: bot.food,
    biome: biome || 'unknown',
    weather: bot.thunderState > 0 ? 'thunderstorm' : bot.isRaining ? 'rain' : 'clear',
    timeOfDay: bot.time.timeOfDay,
    dimension: bot.game.dimension,
    heldItem: held,
    nearbyPlayers: players
  })
}

function inventoryJson (bot) {
  const counts = {}
  for (const item of bot.inventory.items()) counts[item.name] = (counts[item.name] || 0) + item.count
  const slot = s => bot.inventory.slots[s]?.name || null
  return JSON.stringify({
    items: counts,
    equipment: { head: slot(5), torso: slot(6), legs: slot(7), feet: slot(8), offHand: slot(45) },
    heldItem: bot.heldItem ? bot.heldItem.name : null,
    freeSlots: bot.inventory.emptySlotCount()
  })
}

// Distinct block types near the bot, nearest first. Reads state ids straight from the world
// (no Block objects), which keeps a 16-block radius to a few milliseconds.
function nearbyBlocksJson (bot, range = 16, limit = 40) {
  const { Vec3 } = require('vec3')
  const origin = bot.entity.position.floored()
  const byState = bot.registry.blocksByStateId
  const nearest = {}
  const pos = new Vec3(0, 0, 0)
  const r2 = range * range
  const minY = Math.max(origin.y - range, bot.game.minY ?? -64)
  for (let dx = -range; dx <= range; dx++) {
    for (let dz = -range; dz <= range; dz++) {
      const flat = dx * dx + dz * dz
      if (flat > r2) continue
      for (let y = minY; y <= origin.y + range; y++) {
        const dy = y - origin.y
        const d2 = flat + dy * dy
        if (d2 > r2) continue
        pos.set(origin.x + dx, y, origin.z + dz)
        const stateId = bot.world.getBlockStateId(pos)
        if (stateId === undefined || stateId === 0) continue
        const name = byState[stateId]?.name
        if (!name || name === 'air' || name === 'cave_air' || name === 'void_air') continue
        if (nearest[name] === undefined || d2 < nearest[name]) nearest[name] = d2
      }
    }
  }
  const names = Object.keys(nearest).sort((a, b) => nearest[a] - nearest[b]).slice(0, limit)
  return JSON.stringify(names.map(n => ({ name: n, distance: round1(Math.sqrt(nearest[n])) })))
}

// The stack an item entity on the ground holds, or null. The stack comes in a metadata packet after the spawn
// packet: until it arrives prismarine-entity's getDroppedItem throws, so a fresh drop reads as unknown.
function droppedItem (entity) {
  if (!entity || !entity.getDroppedItem) return null
  try {
    return entity.getDroppedItem()
  } catch {
    return null
  }
}

function entitiesJson (bot, range = 16) {
  const origin = bot.entity.position
  const out = []
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.position) continue
    const d = e.position.distanceTo(origin)
    if (d > range) continue
    const item = e.name === 'item' ? droppedItem(e) : null
    out.push({ id: e.id, name: e.name, username: e.username || null, type: e.type, distance: round1(d), item: item ? { name: item.name, count: item.count } : null })
  }
  out.sort((a, b) => a.distance - b.distance)
  return JSON.stringify(out)
}

// Items the bot could craft now (with a crafting table if one is within reach or in the inventory).
function craftableJson (bot) {
  const table = bot.findBlock({ matching: bot.registry.blocksByName.crafting_table.id, maxDistance: 32 })
  const hasTable = !!table || bot.inventory.items().some(i => i.name === 'crafting_table')
  const names = []
  for (const item of bot.registry.itemsArray) {
    if (bot.recipesFor(item.id, null, 1, null).length) names.push(item.name)
    else if (hasTable && table && bot.recipesFor(item.id, null, 1, table).length) names.push(item.name)
    else if (hasTable && !table && bot.recipesFor(item.id, null, 1, true).length) names.push(item.name)
  }
  return JSON.stringify(names)
}

// Everything an observation reads, in one call (one round trip): stats, inventory, block types and entities nearby.
function snapshotJson (bot, range = 16) {
  return `{"stats":${statsJson(bot)},"inventory":${inventoryJson(bot)},"nearbyBlocks":${nearbyBlocksJson(bot, range)},` +
    `"entities":${entitiesJson(bot, range)}}`
}

function blockAtJson (bot, x, y, z) {
  const { Vec3 } = require('vec3')
  const block = bot.blockAt(new Vec3(x, y, z))
  return JSON.stringify(block ? { name: block.name, properties: block.getProperties() } : null)
}

module.exports = {
  droppedItem, blockAtJson, statsJson, inventoryJson, nearbyBlocksJson, entitiesJson, craftableJson, snapshotJson
}
