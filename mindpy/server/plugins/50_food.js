'use strict'
// Eating: using a food item for 1.6 s (32 ticks) eats one, restoring hunger and saturation per
// minecraft-data's foods (stews leave their bowl, milk its bucket) and telling the client it is done.
// Players can eat only when hungry, except foods that are always edible. `/mindpy_hunger <player> <0-20>`
// sets hunger, for set-up and tests (hunger also drops by itself: see 53_hunger.js).

const EAT_MS = 1600
const ALWAYS_EDIBLE = new Set(['golden_apple', 'enchanted_golden_apple', 'chorus_fruit', 'milk_bucket', 'honey_bottle'])
const LEFTOVER = { mushroom_stew: 'bowl', rabbit_stew: 'bowl', beetroot_soup: 'bowl', suspicious_stew: 'bowl', milk_bucket: 'bucket', honey_bottle: 'glass_bottle' }

module.exports.player = function (player, serv) {
  const registry = serv.registry
  const Item = require('prismarine-item')(registry)
  let eating = null

  function stopEating () {
    if (eating) clearTimeout(eating.timer)
    eating = null
  }

  player._client.on('use_item', () => {
    const slot = 36 + player.heldItemSlot
    const item = player.inventory.slots[slot]
    if (!item) return
    const food = registry.foodsByName[item.name]
    if (!food && item.name !== 'milk_bucket') return
    if ((player.food ?? 20) >= 20 && !ALWAYS_EDIBLE.has(item.name)) return
    stopEating()
    eating = {
      slot,
      type: item.type,
      timer: setTimeout(() => finish(slot, item.type), EAT_MS)
    }
  })

  function finish (slot, type) {
    eating = null
    const item = player.inventory.slots[slot]
    if (!item || item.type !== type) return
    const food = registry.foodsByName[item.name]
    if (food) {
      player.food = Math.min(20, (player.food ?? 20) + food.foodPoints)
      player.foodSaturation = Math.min(player.food, (player.foodSaturation ?? 5) + food.saturation)
    }
    const leftover = LEFTOVER[item.name]
    if (item.count > 1) {
      player.inventory.updateSlot(slot, new Item(item.type, item.count - 1))
      if (leftover) {
        const left = player.mindpyGive ? player.mindpyGive(new Item(registry.itemsByName[leftover].id, 1)) : null
        if (left && player.mindpyThrow) player.mindpyThrow(left)
      }
    } else {
      player.inventory.updateSlot(slot, leftover ? new Item(registry.itemsByName[leftover].id, 1) : null)
    }
    player.updateHealth(player.health) // sends hunger and saturation too
    player._client.write('entity_status', { entityId: player.id, entityStatus: 9 })
  }

  player._client.on('held_item_slot', stopEating)
  player._client.on('block_dig', ({ status }) => { if (status === 5) stopEating() })
}

module.exports.server = function (serv) {
  serv.once('pluginsReady', () => {
    const UserError = require('flying-squid').UserError
    serv.commands.add({
      base: 'mindpy_hunger',
      info: "Set a player's hunger (0-20)",
      usage: '/mindpy_hunger <player> <0-20>',
      op: true,
      parse: str => { const a = str.trim().split(/\s+/); return a.length === 2 ? a : false },
      action ([name, value]) {
        const player = serv.getPlayer(name)
        if (!player) throw new UserError(`No player named ${name}`)
        const food = Number(value)
        if (!Number.isInteger(food) || food < 0 || food > 20) throw new UserError('Hunger must be a whole number from 0 to 20')
        player.food = food
        player.foodSaturation = 0
        player.updateHealth(player.health)
        return `Set the hunger of ${name} to ${food}`
      }
    })
  })
}
