'use strict'
// Players as other players see them, respawning, and the login teleport.
//
// - flying-squid spawns players with entity type null, which 1.20.2+ clients read as type 0 ("allay"), so
//   mineflayer never sets bot.players[name].entity. Give players the real player type.
// - Respawn compares the client_command action with 0; at 1.21.1 it arrives as 'perform_respawn', and the
//   respawn packet has a new shape. Handle it here.
// - The tab list (player_info) of a joining player goes to everyone except that player, so a bot that joins
//   after another never learns the other's name. Send it to the joining player too (at every version).
// - After login, the first look/position packet makes flying-squid send the player back to where it logged
//   in, undoing any teleport made in between. Send the player's current position instead. And the rest of the
//   player's view waits for any movement packet or teleport confirmation since the player connected, not for a
//   'flying' or 'look' packet after the spawn (clientInWorld below).
// - flying-squid keeps the inventory of a dead player; vanilla drops it where the player died.
// - A teleport sends the destination, not whatever position the player has by the time the 'move' behaviour ends,
//   and movement packets the client sent before it confirmed the teleport are ignored (as vanilla does).
// - At each join flying-squid sends the whole tab list to every player but the joining one (with N players online,
//   N - 1 packets of N entries: some 700 000 entries, serialized and parsed one packet at a time, for 128 joins).
//   The others only need the joining player's entry; the joining player gets the whole list (above). Config
//   `fullTabListToOthers: true` keeps flying-squid's way (benchmarks compare with it).
// - A player who leaves is announced with player_info's remove_player action, which 1.19.3+ no longer has (its
//   bitfield writes every flag false): other clients kept the player in their list and never saw it leave. Send
//   player_remove there instead.

const path = require('path')
const { wrapEveryAssignment, keepOwn, refusePackets } = require(path.join(__dirname, '..', 'js', 'lib', 'hooks.js'))
const { addToTabList } = require(path.join(__dirname, '..', 'js', 'lib', 'tab_list.js'))

module.exports.server = function (serv, settings) {
  const options = settings?.mindpy?.pluginOptions || {}
  serv.mindpyGameRules = Object.assign(serv.mindpyGameRules || {}, {
    keepInventory: options.keepInventory === true || options.keepInventory === 'true'
  })

  // login.js assigns this again for every joining player: wrap whatever it assigns
  const fullListToOthers = settings?.mindpy?.fullTabListToOthers === true
  wrapEveryAssignment(serv, '_sendPlayerList', (original) => (toPlayer) => {
    if (fullListToOthers || !serv.supportFeature('playerInfoActionIsBitfield')) {
      original(toPlayer)
      return sendFullListTo(serv, toPlayer)
    }
    toPlayer._writeOthers('player_info', addToTabList(serv, [toPlayer]))
    sendFullListTo(serv, toPlayer)
  })
  // the versions whose player_info has the bitfield (1.19.3+) announce a leave with player_remove
  if (serv.supportFeature('playerInfoActionIsBitfield')) {
    keepOwn(serv, '_sendPlayerEventLeave', (leaving) => {
      if (!leaving.uuid) return // left before its login was announced: nobody has it in their list
      leaving._writeOthers('player_remove', { players: [leaving.uuid] })
    })
  }
}

// Make the player's movement packets sent before the client confirmed a teleport reach no handler; returns the
// function that starts such a wait (bounded, should a client never confirm) and gives the teleport its id. Each
// teleport has its own id (flying-squid sends 1 every time), so the confirmation of an earlier teleport does not
// end the wait for a later one.
const TELEPORT_CONFIRM_WAIT_MS = 2000
function ignoreMovesUntilTeleportConfirmed (player) {
  let ignoreUntil = 0
  let lastId = 1 // flying-squid's login position uses 1
  const moveAllowed = () => Date.now() >= ignoreUntil
  refusePackets(player._client, { position: moveAllowed, position_look: moveAllowed })
  player._client.on('teleport_confirm', ({ teleportId }) => { if (teleportId === lastId) ignoreUntil = 0 })
  return () => {
    ignoreUntil = Date.now() + TELEPORT_CONFIRM_WAIT_MS
    lastId = lastId >= 0x7fffffff ? 2 : lastId + 1
    return lastId
  }
}

function sendFullListTo (serv, toPlayer) {
  toPlayer._client.write('player_info', addToTabList(serv, serv.players))
}

module.exports.player = function (player, serv) {
  // flying-squid's teleport awaits the 'move' behaviour, then sends the player its *current* position with
  // teleport id 1, and it applies every movement packet the client sends. A packet the client sent before it took
  // the teleport in (a loaded machine) puts the old position back: the teleport is undone for the server, and a /tp
  // to that player goes to where it was. As vanilla does, movement is ignored until the client confirms this very
  // teleport. flying-squid assigns player.teleport after external plugins run, hence 'asap'.
  const expectTeleportConfirm = ignoreMovesUntilTeleportConfirmed(player)
  player.once('asap', () => {
    player.teleport = async (position) => {
      const destination = position.clone()
      const teleportId = expectTeleportConfirm()
      await player.sendPosition(destination, false, true)
      // a cancelled move leaves the player where it was (flying-squid then sends it back); a player already
      // there gets the teleport too, so that its client confirms it
      if (!player.position.equals(destination)) return
      const { x, y, z } = destination
      player._client.write('position', { x, y, z, yaw: player.yaw, pitch: player.pitch, flags: 0x00, teleportId })
    }
  })
  const registry = serv.registry
  player.entityType = registry.entitiesByName.player.id

  const inWorld = clientInWorld(player)
  player.once('asap', () => {
    dropInventoryOnDeath(player, serv)
    player.waitPlayerLogin = async () => {
      await inWorld
      const sendSelfPosition = player.sendSelfPosition
      player.sendSelfPosition = () => {
        player.sendSelfPosition = sendSelfPosition
        return sendSelfPosition() // where the player is now, not where it logged in
      }
    }
  })

  player._client.removeAllListeners('client_command')
  player._client.on('client_command', (data) => {
    const action = data.actionId ?? data.payload
    if (action === 'perform_respawn' || action === 0) respawn(player, serv)
  })
}

// Resolves once the client has sent a movement packet or confirmed a teleport: it is in the world. flying-squid's
// login waits for a 'flying' or 'look' packet before it sends the rest of the player's view, listening only once
// the spawn is sent; mineflayer sends 'flying' once, when it first lands, which can arrive before that (a fast
// join), and otherwise only 'position' packets: the view stayed at the first 6x6 columns for good. These listeners
// start with the player.
const IN_WORLD_PACKETS = ['flying', 'look', 'position', 'position_look', 'teleport_confirm']
function clientInWorld (player) {
  return new Promise(resolve => {
    const arrived = () => {
      for (const name of IN_WORLD_PACKETS) player._client.removeListener(name, arrived)
      resolve()
    }
    for (const name of IN_WORLD_PACKETS) player._client.on(name, arrived)
  })
}

// A player who dies drops everything it carries around where it died, as in vanilla, unless the game rule
// keepInventory is on (serv.mindpyGameRules, set from the plugin option keepInventory).
function dropInventoryOnDeath (player, serv) {
  const updateHealth = player.updateHealth
  player.updateHealth = (health) => {
    const dying = player.health > 0 && health <= 0
    updateHealth(health)
    if (!dying) return
    if (serv.mindpyGameRules.keepInventory) return
    const { Vec3 } = require('vec3')
    const items = player.inventory.slots.map((item, slot) => (slot > 0 && item ? item : null)).filter(Boolean)
    const cursor = player.mindpyWindowState?.cursor
    if (cursor) items.push(cursor)
    if (player.mindpyWindowState) player.mindpyWindowState.cursor = null
    for (let slot = 0; slot < player.inventory.slots.length; slot++) player.inventory.slots[slot] = null
    for (const item of items) {
      const velocity = new Vec3((Math.random() - 0.5) * 4, 2, (Math.random() - 0.5) * 4)
      serv.mindpyDropItem(player.world, player.position.offset(0, 1, 0), item, { velocity, pickupDelay: 2000 })
    }
    if (items.length && player.mindpySyncInventory) player.mindpySyncInventory()
  }
}

async function respawn (player, serv) {
  if (player.health > 0) return
  const world = player.world
  const spawn = await serv.getSpawnPoint(world)
  if (serv.registry.version['>=']('1.20.5')) {
    player._client.write('respawn', {
      worldState: {
        dimension: 0,
        name: 'minecraft:overworld',
        hashedSeed: [0, 0],
        gamemode: player.gameMode,
        previousGamemode: 255,
        isDebug: false,
        isFlat: true,
        portalCooldown: 0
      },
      copyMetadata: 0
    })
  } else {
    player._sendRespawn()
  }
  player._unloadAllChunks()
  player.position = spawn
  player.lastPositionChunkUpdated = null
  player.food = 20
  player.foodSaturation = 5
  player.updateHealth(20)
  player.sendSelfPosition(spawn)
  await player.worldSendRestOfChunks()
  player.nearbyEntities = []
  player.updateAndSpawn()
  if (player.mindpySyncInventory) player.mindpySyncInventory()
  player.emit('mindpyRespawn')
}
