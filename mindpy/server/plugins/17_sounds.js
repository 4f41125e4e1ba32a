'use strict'
// Sounds that clients can read. flying-squid names its sounds the pre-1.13 way ('dig.stone', 'random.pop'); at
// 1.19.3+ it writes them inline in sound_effect without the holder's leading 0 (whatever byte the buffer held is
// read as a sound id), with positions divided by 4 and a pitch scaled for 1.8's byte. mineflayer then fails to
// parse the packet ("Chunk size is 42 but only 37 was read"). Here every sound goes out by its id in
// minecraft-data's sound registry, in the shape of the version's sound_effect packet; a name with no registry
// entry is not sent at all.
//
// Placing a block plays the block's place sound (vanilla: volume 1, pitch 0.8 for every common block type) to the
// other players within 16 blocks; the placer's own client plays it itself, so the server does not send it there.
// minecraft-data has no block sound types: the type is chosen from the block's name.

const path = require('path')
const { wrapEveryAssignment, keepOwn } = require(path.join(__dirname, '..', 'js', 'lib', 'hooks.js'))

// flying-squid's sound names, as the registry names them now
const LEGACY_NAMES = {
  'random.pop': 'entity.item.pickup',
  'game.player.hurt': 'entity.player.hurt',
  'random.chestopen': 'block.chest.open',
  'random.chestclosed': 'block.chest.close'
}
// the order of the protocol's sound categories (soundSource)
const CATEGORIES = ['master', 'music', 'record', 'weather', 'block', 'hostile', 'neutral', 'player', 'ambient', 'voice']
const HEARING_RADIUS = 16 // vanilla, for a volume of 1
const PLACE_VOLUME = 1
const PLACE_PITCH = 0.8
// first match wins: leaves and crops before wood (oak_leaves), sand before stone (sandstone is stone: no match)
const SOUND_TYPES = [
  [/wool|carpet/, 'wool'],
  [/leaves|grass|sapling|flower|fern|hay_block|moss|wheat|carrots|potatoes|beetroots|tnt|vine|bush/, 'grass'],
  [/glass/, 'glass'],
  [/^(red_)?sand$|concrete_powder/, 'sand'],
  [/^dirt$|coarse_dirt|gravel|farmland|clay$/, 'gravel'],
  [/planks|_log$|_wood$|fence|door|crafting_table|chest|barrel|bookshelf|ladder|^(oak|spruce|birch|jungle|acacia|dark_oak|mangrove|cherry)_/, 'wood']
]

module.exports.server = function (serv) {
  const registry = serv.registry
  // 1.19.3+: {sound: {soundId}} and the category by name; before: {soundId} and the category's index
  const holder = serv.supportFeature('removedNamedSoundEffectPacket')

  function soundPacket (id, position, { volume, pitch, category }) {
    const index = typeof category === 'number' ? category : Math.max(0, CATEGORIES.indexOf(category))
    return {
      ...(holder ? { sound: { soundId: id }, soundCategory: CATEGORIES[index] } : { soundId: id, soundCategory: index }),
      x: Math.floor(position.x * 8), // fixed point, 3 fraction bits
      y: Math.floor(position.y * 8),
      z: Math.floor(position.z * 8),
      volume,
      pitch,
      seed: [0, 0]
    }
  }

  function soundId (name) {
    const bare = String(name).replace(/^minecraft:/, '')
    return registry.soundsByName?.[LEGACY_NAMES[bare] ?? bare]?.id
  }

  function playSound (name, world, position, options = {}) {
    const id = soundId(name)
    if (id !== undefined) playSoundId(id, world, position, options)
  }

  function playSoundId (id, world, position, { whitelist, blacklist = [], radius = 32, volume = 1, pitch = 1, soundCategory = 0 } = {}) {
    const listeners = whitelist !== undefined ? [].concat(whitelist) : serv.getNearby({ world, position, radius })
    const options = { volume, pitch, category: soundCategory }
    const packet = position && soundPacket(id, position, options) // without a position, each hears it where it is
    for (const player of listeners) {
      if (blacklist.includes(player)) continue
      player._client.write('sound_effect', packet || soundPacket(id, player.position, options))
    }
  }

  // flying-squid's sound plugin loads after ours and assigns these: keep ours
  keepOwn(serv, 'playSound', playSound)
  keepOwn(serv, 'playSoundId', playSoundId)

  // The block a placement puts down is known once serv.placeItem has answered (placeBlock.js places it right after).
  // flying-squid's own placement sound ('dig.stone'...) has no registry entry under that name, so is not sent.
  wrapEveryAssignment(serv, 'placeItem', (original) => async (data) => {
    const result = await original(data)
    const block = result && registry.blocks[result.id]
    if (block && data.player && data.placedPosition) playPlaceSound(block, data.player, data.placedPosition)
    return result
  })

  function playPlaceSound (block, placer, position) {
    const center = position.offset(0.5, 0.5, 0.5)
    const others = serv.getNearby({ world: placer.world, position: center, radius: HEARING_RADIUS })
      .filter(player => player !== placer)
    if (!others.length) return
    playSound(`block.${soundType(block.name)}.place`, placer.world, center,
      { whitelist: others, volume: PLACE_VOLUME, pitch: PLACE_PITCH, soundCategory: 'block' })
  }
}

// The sound type of a block (which names its place sound), from the block's name.
function soundType (blockName) {
  for (const [pattern, type] of SOUND_TYPES) if (pattern.test(blockName)) return type
  return 'stone'
}
