// One worker agent of a lockstep trace: a dedicated worker of the test page, driven by messages
// (lockstep-driver.js).
'use strict';
importScripts('../lockstep-driver.js');
lockstep.serve(new URLSearchParams(location.search).get('agent'), (message) => postMessage(message),
               (receive) => addEventListener('message', (m) => receive(m.data)));
