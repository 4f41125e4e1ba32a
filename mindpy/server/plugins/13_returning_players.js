'use strict'
// Players who leave and join again (a bot restarting) come back with their inventory, position, health
// and game mode as they left them, as on a vanilla server. flying-squid keeps nothing of a player who left
// unless it writes player files into a world folder (and reads them back only at the next start): here
// the server remembers them in memory while it runs.

const convertSlot = require('flying-squid/src/lib/convertInventorySlotId')

const FIELDS = ['position', 'yaw', 'pitch', 'heldItemSlot', 'health', 'food', 'gameMode', 'xp']

module.exports.server = function (serv) {
  serv.mindpyReturningPlayers = new Map() // uuid -> {fields, items: [[slot, name, count]]}
}

module.exports.player = function (player, serv) {
  const registry = serv.registry
  const remembered = serv.mindpyReturningPlayers

  // login.js reads the stored player data into player._playerData, copies its fields onto the player and
  // later puts its inventory into the player's slots (before the client spawns). Swap in what we remember.
  let playerData
  Object.defineProperty(player, '_playerData', {
    configurable: true,
    get: () => playerData,
    set: (data) => {
      playerData = data
      const memory = data && remembered.get(player.uuid)
      if (!memory) return
      Object.assign(data.player, memory.fields)
      data.inventory = memory.items.map(([slot, name, count]) => ({
        id: { value: `minecraft:${name}` },
        Count: { value: count },
        Slot: { value: Number(convertSlot.toNBT(slot)) }
      }))
    }
  })

  // The inventory plugin empties the cursor and crafting grid into the inventory when the player leaves;
  // remember the result afterwards (its listener is added at 'asap' too, before this one).
  player.once('asap', () => {
    player.once('disconnected', () => {
      if (!player.uuid || player.health <= 0) { remembered.delete(player.uuid); return }
      const fields = {}
      for (const field of FIELDS) fields[field] = player[field]
      fields.position = player.position.clone()
      const items = []
      player.inventory.slots.forEach((item, slot) => {
        if (item && slot >= 5 && slot <= 45) items.push([slot, registry.items[item.type].name, item.count])
      })
      remembered.set(player.uuid, { fields, items })
    })
  })
}
