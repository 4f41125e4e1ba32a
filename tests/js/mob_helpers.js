'use strict'
// What a bot sees of mobs and their drops, in one call each (tests/test_hostile_mobs.py).

// The living entities named `name` the bot knows: [{id, distance, y, onFire, kind}], nearest first.
function mobs (bot, name) {
  const found = []
  for (const id in bot.entities) {
    const e = bot.entities[id]
    if (e === bot.entity || e.name !== name || !e.isValid) continue
    const flags = e.metadata?.[0] ?? 0
    found.push({ id: e.id, distance: e.position.distanceTo(bot.entity.position), y: e.position.y, onFire: (flags & 1) === 1, kind: e.kind })
  }
  return JSON.stringify(found.sort((a, b) => a.distance - b.distance))
}

// Names of the items lying within `radius` blocks of the bot.
function dropsNear (bot, radius) {
  const names = []
  for (const id in bot.entities) {
    const e = bot.entities[id]
    if (e.name !== 'item' || e.position.distanceTo(bot.entity.position) > radius) continue
    const item = e.getDroppedItem && e.getDroppedItem()
    if (item) names.push(item.name)
  }
  return JSON.stringify(names.sort())
}

// Hit the nearest living `name` once (within reach); false when there is none.
function hitNearest (bot, name) {
  const target = bot.nearestEntity(e => e.name === name && e.isValid)
  if (!target) return false
  bot.attack(target)
  return true
}

module.exports = { mobs, dropsNear, hitNearest }
