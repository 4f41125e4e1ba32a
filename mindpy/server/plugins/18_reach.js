'use strict'
// Reach: a player acts only on what is within reach of its eyes, as on vanilla and Paper. flying-squid takes
// attacks, entity interactions, digging and block placing from any distance (a bot killed a cow 17 blocks away).
//
// The limits are vanilla's since 1.20.5 (Player.canInteractWithEntity / canInteractWithBlock, called by the
// server with 1 block of margin for latency): the distance from the eyes to the nearest point of the target's
// hitbox, or of the block's cube, must be below
//   entities: 3 (entity_interaction_range) + 1 = 4 blocks; creative 5 + 1 = 6
//   blocks:   4.5 (block_interaction_range) + 1 = 5.5 blocks; creative 5 + 1 = 6
// Older versions used one limit of 6 blocks (MAX_INTERACTION_DISTANCE = 36, squared): 6 here for both.
//
// A refused packet reaches no handler, as vanilla drops it. What the client is told afterwards is vanilla's too:
// a refused dig gets the block sent back (mineflayer, like the vanilla client, shows the block as broken as soon
// as it finishes digging; the vanilla client undoes that on the acknowledgement, mineflayer needs the block),
// a refused placement or use of a block only the acknowledgement (nothing was placed, so nothing to undo).

const path = require('path')
const { Vec3 } = require('vec3')
const { refusePackets } = require(path.join(__dirname, '..', 'js', 'lib', 'hooks.js'))

const EYE_HEIGHT = 1.62
const CROUCHING_EYE_HEIGHT = 1.27
const MODERN_REACH = {
  survival: { entity: 3 + 1, block: 4.5 + 1 },
  creative: { entity: 5 + 1, block: 5 + 1 }
}
const OLD_REACH = { entity: 6, block: 6 }
const CREATIVE = 1
const DIG_STATUSES = new Set([0, 1, 2]) // start, cancel, finish; the others (drop, eat, swap hands) aim at nothing

module.exports.player = function (player, serv) {
  const registry = serv.registry
  const modern = registry.version['>=']('1.20.5')
  const reach = () => modern ? MODERN_REACH[player.gameMode === CREATIVE ? 'creative' : 'survival'] : OLD_REACH
  const eyes = () => player.position.offset(0, player.crouching ? CROUCHING_EYE_HEIGHT : EYE_HEIGHT, 0)

  const entityInReach = (entity) => distanceToBox(eyes(), hitbox(entity, registry)) < reach().entity
  const blockInReach = (position) => distanceToBox(eyes(), blockBox(position)) < reach().block

  // flying-squid, and our plugins, handle these packets in listeners on the client: refuse before any runs
  refusePackets(player._client, {
    use_entity: ({ target }) => {
      const entity = serv.entities[target]
      return !entity || entityInReach(entity) // an unknown id is flying-squid's to ignore
    },
    block_dig: ({ status, location, sequence }) => {
      if (!DIG_STATUSES.has(status) || blockInReach(location)) return true
      resendBlock(player, serv, location, sequence)
      return false
    },
    block_place: ({ location, sequence }) => {
      if (blockInReach(location)) return true
      acknowledge(player, serv, sequence)
      return false
    }
  })
}

// The distance from `point` to the nearest point of the box {min, max} (0 inside it).
function distanceToBox (point, { min, max }) {
  const dx = Math.max(min.x - point.x, 0, point.x - max.x)
  const dy = Math.max(min.y - point.y, 0, point.y - max.y)
  const dz = Math.max(min.z - point.z, 0, point.z - max.z)
  return Math.hypot(dx, dy, dz)
}

// An entity's hitbox: its registry width and height around its feet (a point for an unknown kind).
function hitbox (entity, registry) {
  const kind = registry.entities[entity.entityType] || registry.entitiesByName[entity.name] || {}
  const half = (kind.width || 0) / 2
  const { x, y, z } = entity.position
  return { min: new Vec3(x - half, y, z - half), max: new Vec3(x + half, y + (kind.height || 0), z + half) }
}

function blockBox ({ x, y, z }) {
  return { min: new Vec3(x, y, z), max: new Vec3(x + 1, y + 1, z + 1) }
}

// Send the block the client thinks it broke as it still is, and acknowledge the dig.
async function resendBlock (player, serv, location, sequence) {
  try {
    const position = new Vec3(location.x, location.y, location.z)
    const block = await player.world.getBlock(position)
    player._client.write('block_change', { location: position, type: block.stateId })
    acknowledge(player, serv, sequence)
  } catch (err) {
    serv.err?.(`[mindpy] could not send a refused dig's block back to ${player.username}: ${err.stack}`)
  }
}

// 1.19+ clients number their block actions and wait for the server to acknowledge them.
function acknowledge (player, serv, sequence) {
  if (sequence === undefined || !serv.supportFeature('acknowledgePlayerDigging')) return
  player._client.write('acknowledge_player_digging', { sequenceId: sequence })
}
