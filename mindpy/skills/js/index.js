'use strict'
// The skills library as one mineflayer plugin: injecting it loads the core plugin and every concern plugin
// into the bot, each registering its skills in bot.skills. Python loads it once per bot (Bot.load_plugin)
// and calls run(bot, name, argsJson) once per skill: the loops stay on this side.

const core = require('./core')

const CONCERNS = [
  require('./movement'),
  require('./gathering'),
  require('./crafting'),
  require('./inventory'),
  require('./combat'),
  require('./interaction')
]

function inject (bot) {
  bot.loadPlugin(core.inject)
  for (const concern of CONCERNS) bot.loadPlugin(concern.inject)
}

module.exports = {
  inject,
  run: core.run,
  interrupt: core.interrupt,
  runningSkill: core.runningSkill,
  setCheat: core.setCheat,
  setRestrictToInventory: core.setRestrictToInventory,
  setProtectedBlocks: core.setProtectedBlocks,
  names: bot => JSON.stringify(bot.skills ? bot.skills.names() : [])
}
