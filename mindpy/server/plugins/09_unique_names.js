'use strict'
// One player per name. While a player of a name is online (or joining), a newcomer with the same name, in any
// letter case, is refused with a reason that says so: nobody can take over or speak as an agent's bot by joining
// under its name. flying-squid means to refuse a second login of one UUID, but it looks the UUID up before it has
// set it, so it let every duplicate in. (Vanilla kicks the old session instead; here the player already online
// stays, since it is an agent's bot that must not be taken over.)

const path = require('path')
const { wrapEveryAssignment } = require(path.join(__dirname, '..', 'js', 'lib', 'hooks.js'))

module.exports.server = function (serv) {
  serv.mindpyNamesInUse = new Map() // lower-case name -> the player holding it, from its login until it leaves
}

module.exports.player = function (player, serv) {
  const names = serv.mindpyNamesInUse
  const name = player._client.username
  const key = String(name).toLowerCase()
  // login.js assigns player.login after our plugins ran
  wrapEveryAssignment(player, 'login', (login) => async () => {
    const holder = names.get(key)
    if (holder && holder !== player && !holder.disconnected) {
      serv.info(`refused ${name}: ${holder.username || name} is already on the server`)
      // nothing of this player was announced, so its leaving must not be either (flying-squid would announce a
      // player without a name or UUID, which no client can read); it only leaves the world's entities
      player.disconnected = true
      delete serv.entities[player.id]
      player._client.end(`A player named ${holder.username || name} is already on this server`)
      return
    }
    names.set(key, player)
    player._client.once('end', () => { if (names.get(key) === player) names.delete(key) })
    return login()
  })
}
