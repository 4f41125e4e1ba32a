'use strict'
// The viewer's page: prismarine-viewer's client (public/index.js) after a script that watches its mesh workers, so
// a caller can tell when the world has been drawn: the columns handed to them, the sections still waiting to be
// meshed, and the animation frames drawn since the last mesh arrived (window.mindpyView.drawn(columns)).
// (Kept free of template placeholders: it is one template literal.)

module.exports = `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>mindpy: bot view</title>
<style>
  html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; background: #000; }
  canvas { display: block; width: 100%; height: 100%; }
</style>
<script>
(function () {
  const state = { columns: new Set(), waiting: new Set(), meshes: 0, frames: 0, lastMeshFrame: -1 }
  const sectionKey = (x, y, z) => [x, y, z].map(v => Math.floor(v / 16) * 16).join(',')
  // The client starts four mesh workers, each loading a 63 MB script (minecraft-data for every version) and
  // getting a copy of every chunk column. One worker does the same work for a few columns at a fraction of the
  // start-up: the four the client asks for are stand-ins for one. What the client sends to all of them is passed
  // on once (from the first stand-in); sections to mesh are passed on from any; replies go to the first.
  const NativeWorker = window.Worker
  const TO_ALL = new Set(['version', 'blockStates', 'chunk', 'unloadChunk', 'blockUpdate', 'reset'])
  let real = null
  let lead = null
  function watch ({ data }) {
    if (!data) return
    if (data.type === 'geometry') { state.meshes++; state.lastMeshFrame = state.frames }
    if (data.type === 'sectionFinished') state.waiting.delete(data.key)
  }
  function StandInWorker (src, options) {
    if (!real) {
      real = new NativeWorker(src, options)
      real.addEventListener('message', event => {
        watch(event)
        if (lead && lead.onmessage) lead.onmessage(event)
      })
    }
    const standIn = {
      onmessage: null,
      postMessage (message, transfer) {
        if (message && TO_ALL.has(message.type)) {
          if (standIn !== lead) return
          if (message.type === 'chunk') state.columns.add(message.x + ',' + message.z)
          if (message.type === 'unloadChunk') state.columns.delete(message.x + ',' + message.z)
          if (message.type === 'reset') state.columns.clear()
        }
        if (message && message.type === 'dirty') state.waiting.add(sectionKey(message.x, message.y, message.z))
        return transfer ? real.postMessage(message, transfer) : real.postMessage(message)
      },
      addEventListener () {},
      removeEventListener () {},
      terminate () {}
    }
    if (!lead) lead = standIn
    return standIn
  }
  window.Worker = StandInWorker
  function tick () { state.frames++; window.requestAnimationFrame(tick) }
  window.requestAnimationFrame(tick)
  window.mindpyView = {
    state,
    // at least this many columns received, every section meshed, a mesh shown, and two frames drawn since
    drawn (columns) {
      return state.columns.size >= Math.max(1, columns) && state.waiting.size === 0 && state.meshes > 0 &&
        state.frames - state.lastMeshFrame >= 2
    },
    summary () {
      return { columns: state.columns.size, waiting: state.waiting.size, meshes: state.meshes, frames: state.frames }
    }
  }
})()
</script>
</head>
<body>
<script src="index.js"></script>
</body>
</html>
`
