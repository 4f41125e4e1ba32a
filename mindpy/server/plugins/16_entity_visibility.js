'use strict'
// Which entities each player is sent. flying-squid's updateAndSpawn, when a moving entity comes into a
// player's view, resets that player's list of known entities to everything near it, including entities it
// was never sent. Three players teleported next to each other then leave one pair invisible to each other
// for good (a bot "cannot find" a teammate standing beside it). Here a player's list only gains or loses the
// entity that actually came or went.

const path = require('path')
const { addToTabList } = require(path.join(__dirname, '..', 'js', 'lib', 'tab_list.js'))
const { wrapEveryAssignment } = require(path.join(__dirname, '..', 'js', 'lib', 'hooks.js'))

const BYTE_ANGLE_TO_DEGREES = 360 / 256

module.exports.entity = function (entity, serv) {
  // flying-squid's own entity plugins run after ours and assign updateAndSpawn again: keep ours
  Object.defineProperty(entity, 'updateAndSpawn', { configurable: true, get: () => updateAndSpawn, set: () => {} })

  // From 1.21.2 on entity_teleport has another shape (velocity, angles in degrees, relative flags): flying-squid's
  // old one fails to encode and drops every player near an entity that moves more than 7 blocks at once (a /tp).
  // Those versions also have sync_entity_position, which says the same thing: send that instead.
  if (serv.registry.protocol?.play?.toClient?.types?.packet_sync_entity_position) {
    wrapEveryAssignment(entity, '_writeOthersNearby', (original) => (name, fields) => {
      if (name !== 'entity_teleport') return original(name, fields)
      const { entityId, x, y, z, yaw, pitch, onGround } = fields
      return original('sync_entity_position', {
        entityId, x, y, z, dx: 0, dy: 0, dz: 0, yaw: yaw * BYTE_ANGLE_TO_DEGREES, pitch: pitch * BYTE_ANGLE_TO_DEGREES, onGround
      })
    })
  }

  function updateAndSpawn () {
    const nearby = entity.getNearby()
    const added = nearby.filter(e => !entity.nearbyEntities.includes(e))
    const removed = entity.nearbyEntities.filter(e => !nearby.includes(e))
    if (entity.type === 'player') {
      entity.despawnEntities(removed)
      added.forEach(entity.spawnEntity)
    }
    entity.lastPositionPlayersUpdated = entity.position.clone()
    for (const player of removed.filter(e => e.type === 'player')) {
      if (!player.nearbyEntities.includes(entity)) continue
      player.despawnEntities([entity])
      player.nearbyEntities = player.nearbyEntities.filter(e => e !== entity)
    }
    for (const player of added.filter(e => e.type === 'player')) {
      // a player still logging in would drop the packet; its own updateAndSpawn at the end of login sends it
      if (player.nearbyEntities.includes(entity) || !player.mindpyLoginSent) continue
      player.spawnEntity(entity)
      player.nearbyEntities = [...player.nearbyEntities, entity]
    }
    entity.nearbyEntities = nearby
  }

  // flying-squid checks whether to update who sees whom in the 'move' event, before the new position is
  // stored: after a teleport of an entity that then stands still the check never passes, so players near
  // the new place never see it arrive (and it keeps seeing those near the old place). Check again once the
  // position is stored.
  entity.on('move_done', () => {
    if (entity.lastPositionPlayersUpdated && entity.position.distanceTo(entity.lastPositionPlayersUpdated) > 2) {
      updateAndSpawn()
    }
  })
}

// A player entity sent before its tab-list entry is never linked to that player by the client (mineflayer
// names a player entity from the tab list at spawn time), which happens when bots join at the same moment.
// Send the entry first, every time a player entity is spawned for someone. And nothing is spawned for a player
// before its login packet, which the client would drop.
module.exports.player = function (player, serv) {
  const write = player._client.write.bind(player._client)
  player._client.write = (name, data) => {
    if (name === 'login') player.mindpyLoginSent = true
    return write(name, data)
  }

  let spawnEntity
  Object.defineProperty(player, 'spawnEntity', {
    configurable: true,
    get: () => spawnEntity,
    set: (original) => {
      spawnEntity = (entity) => {
        if (entity.type === 'player' && entity !== player) sendTabEntry(player, entity, serv)
        return original(entity)
      }
    }
  })
}

function sendTabEntry (toPlayer, other, serv) {
  toPlayer._client.write('player_info', addToTabList(serv, [other]))
}
