// Shows the minimal harness's results in the page and posts them to the server that served it.
'use strict';
globalThis.addEventListener('lockstep-done', () => {
  const pre = document.createElement('pre');
  pre.id = 'lockstep-results';
  pre.textContent = JSON.stringify(globalThis.lockstepResults);
  document.body.appendChild(pre);
  // export/wpt/run-chromium.py serves the page and waits for this.
  fetch('/lockstep-results?page=' + encodeURIComponent(location.pathname.slice(1)),
        {method: 'POST', body: pre.textContent}).catch(() => {});
});
