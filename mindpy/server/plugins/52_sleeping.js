'use strict'
// Sleeping: using a bed at night (or in a thunderstorm) lays the player down (the sleeping pose and bed
// position in the player's metadata, which is what mineflayer's bot.sleep waits for) and marks the bed
// occupied; leaving the bed (bot.wake) stands it up again. When every player of the world has slept for
// 5 s, the night is skipped: morning comes, the weather clears and everyone wakes up. Not done: beds do
// not become respawn points (respawns go to the world spawn) and sleepers are not moved into the bed.

const path = require('path')
const { Vec3 } = require('vec3')
const { metadataFor, metadataKey } = require(path.join(__dirname, '..', 'js', 'lib', 'metadata.js'))

const NIGHT = [12541, 23458] // when beds can be used, in ticks of the day (vanilla, clear weather)
const SKIP_AFTER_TICKS = 100
const REACH = 3.5 // blocks from the player's feet to the bed's centre
const POSE_STANDING = 0
const POSE_SLEEPING = 2
const LEAVE_BED = new Set([2, 'leave_bed', 'stop_sleeping']) // entity_action, as numbered or named by version
const ANIMATION_WAKE_UP = 2
const FACING_VECTOR = { north: new Vec3(0, 0, -1), south: new Vec3(0, 0, 1), west: new Vec3(-1, 0, 0), east: new Vec3(1, 0, 0) }

module.exports.server = function (serv) {
  const registry = serv.registry
  const POSE_KEY = metadataKey(registry, 'player', 'pose')
  const BED_KEY = metadataKey(registry, 'player', 'sleeping_pos')
  if (POSE_KEY < 0 || BED_KEY < 0) return // this version's metadata is unknown: no sleeping
  const Block = require('prismarine-block')(registry)
  const sleepers = new Map() // player -> {head: Vec3 of the bed's head, since: tick}

  const canSleepNow = () => {
    const time = ((serv.time % 24000) + 24000) % 24000
    return serv.mindpyWeather === 'thunder' || (time >= NIGHT[0] && time <= NIGHT[1])
  }

  function sendPose (player, head) {
    const packet = {
      entityId: player.id,
      metadata: metadataFor(registry, [
        { key: POSE_KEY, type: 'pose', value: head ? POSE_SLEEPING : POSE_STANDING },
        { key: BED_KEY, type: 'optional_block_pos', value: head || undefined }
      ])
    }
    player._client.write('entity_metadata', packet)
    player._writeOthersNearby('entity_metadata', packet)
  }

  async function setOccupied (world, head, occupied) {
    const block = await world.getBlock(head)
    if (!block.name.endsWith('_bed')) return
    const props = block.getProperties()
    const foot = head.minus(FACING_VECTOR[props.facing])
    for (const pos of [head, foot]) {
      const half = await world.getBlock(pos)
      if (half.name !== block.name) continue
      await serv.setBlock(world, pos, Block.fromProperties(half.name, { ...half.getProperties(), occupied }, 0).stateId)
    }
  }

  async function lieDown ({ block, player }) {
    const props = block.getProperties()
    const head = props.part === 'head' ? block.position : block.position.plus(FACING_VECTOR[props.facing])
    if (sleepers.has(player)) return true
    if (!canSleepNow()) return tell(player, 'You can sleep only at night or during thunderstorms')
    if (player.position.distanceTo(block.position.offset(0.5, 0.5, 0.5)) > REACH) return tell(player, 'You may not rest now; the bed is too far away')
    if (props.occupied) return tell(player, 'This bed is occupied')
    sleepers.set(player, { head, since: serv.tickCount })
    await setOccupied(player.world, head, true)
    sendPose(player, head)
    return true // handled: nothing is placed against the bed
  }

  function tell (player, text) {
    player.chat(text)
    return true
  }

  async function wake (player) {
    const sleeper = sleepers.get(player)
    if (!sleeper) return
    sleepers.delete(player)
    sendPose(player, null)
    const packet = { entityId: player.id, animation: ANIMATION_WAKE_UP }
    player._client.write('animation', packet)
    player._writeOthersNearby('animation', packet)
    await setOccupied(player.world, sleeper.head, false)
  }
  serv.mindpyWake = wake

  // Morning comes once everyone in the world has slept long enough.
  serv.on('tick', (delta, tick) => {
    if (!sleepers.size) return
    const awake = serv.players.filter(p => p.health > 0 && !sleepers.has(p))
    const rested = [...sleepers.values()].every(s => tick - s.since >= SKIP_AFTER_TICKS)
    if (awake.length || !rested) return
    serv.setTime(0)
    if (serv.mindpyWeather && serv.mindpyWeather !== 'clear') serv.mindpySetWeather('clear')
    for (const player of [...sleepers.keys()]) wake(player).catch(err => console.error('[mindpy] waking:', err))
  })

  serv.once('pluginsReady', () => {
    for (const block of registry.blocksArray) {
      if (block.name.endsWith('_bed')) serv.onBlockInteraction(block.name, lieDown)
    }
  })

  serv.on('newPlayer', (player) => {
    player._client.on('entity_action', ({ actionId }) => {
      if (LEAVE_BED.has(actionId)) wake(player).catch(err => console.error('[mindpy] waking:', err))
    })
    player._client.on('end', () => {
      const sleeper = sleepers.get(player)
      sleepers.delete(player)
      if (sleeper) setOccupied(player.world, sleeper.head, false).catch(err => console.error('[mindpy] bed:', err))
    })
  })
}
