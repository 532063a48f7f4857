// A stand-in for web-platform-tests' /common/get-host-info.sub.js outside a WPT checkout, enough
// for the pages of `lockstep export --wpt`: the remote origin is the page server's other loopback
// name (export/wpt/run-chromium.py serves 127.0.0.1 and localhost on one port), or `?remote=ORIGIN`
// in the page's URL. In a WPT checkout the real file is used instead.
'use strict';
function get_host_info() {
  const other = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  const remote = new URLSearchParams(location.search).get('remote') ||
      `${location.protocol}//${other}:${location.port}`;
  return {ORIGIN: location.origin, HTTP_ORIGIN: location.origin, HTTP_REMOTE_ORIGIN: remote,
          HTTPS_REMOTE_ORIGIN: remote, REMOTE_ORIGIN: remote};
}
