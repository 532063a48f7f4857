"""How lockstep's browsers stay off the network: they talk to the loopback servers of the adapters
and tests and to nothing else. Requests to any other host go to a proxy address where nothing
listens, no host name but localhost reaches a DNS server, and the background services that would
try the network on their own (updates, telemetry, safe browsing, sync, remote settings,
connectivity checks) are off. Checked with strace on an adapter run of each: no DNS query, and
connect() calls to 127.0.0.1 only, but for one UDP socket Chromium connects to a public address
to learn its default route (a UDP connect sends no packet; the socket is closed unused).
"""

DEAD_PROXY = ("127.0.0.1", 9)  # the discard port: nothing listens there

# Firefox (a profile's user.js), with FIREFOX_ENV in its environment.

FIREFOX_PREFS = {
    # Only the loopback server: localhost and 127.0.0.1 bypass the proxy, the rest goes nowhere.
    "network.proxy.type": 1,
    "network.proxy.http": DEAD_PROXY[0],
    "network.proxy.http_port": DEAD_PROXY[1],
    "network.proxy.share_proxy_settings": True,
    "network.proxy.allow_hijacking_localhost": False,
    "network.trr.mode": 5,
    "network.dns.forceResolve": "127.0.0.1",  # no name ever reaches a DNS server
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "network.predictor.enabled": False,
    "network.http.speculative-parallel-limit": 0,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.blockedURIs.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.unified": False,
    "toolkit.telemetry.server": "",
    "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False,
    "app.update.auto": False,
    "app.update.checkInstallTime": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.blocklist.enabled": False,
    "services.settings.server": "http://127.0.0.1:9/",
    "browser.region.update.enabled": False,
    "browser.region.network.url": "",
    "geo.provider.network.url": "",
    "media.gmp-manager.url": "",
    "dom.push.enabled": False,
    "dom.push.connection.enabled": False,
    "identity.fxaccounts.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.newtabpage.activity-stream.feeds.topsites": False,
    "browser.newtabpage.activity-stream.feeds.section.topstories": False,
    "browser.newtabpage.activity-stream.showSponsored": False,
    "browser.newtabpage.activity-stream.showSponsoredTopSites": False,
    "browser.topsites.contile.enabled": False,
    "browser.urlbar.quicksuggest.enabled": False,
    "browser.urlbar.suggest.quicksuggest.sponsored": False,
    "browser.startup.page": 0,
    "browser.startup.homepage_override.mstone": "ignore",
    "startup.homepage_welcome_url": "",
    "browser.aboutwelcome.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    # The page's timers are the adapter's settling: none throttled.
    "dom.min_background_timeout_value": 0,
    "dom.timeout.enable_budget_throttling": False,
}


# services.settings.server is only read with this set (Remote Settings' developer switch).
FIREFOX_ENV = {"MOZ_REMOTE_SETTINGS_DEVTOOLS": "1"}

# Chromium's command line. Loopback addresses bypass a proxy implicitly.
CHROMIUM_FLAGS = [
    f"--proxy-server=http://{DEAD_PROXY[0]}:{DEAD_PROXY[1]}",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-client-side-phishing-detection",
    "--no-default-browser-check",
    "--no-pings",
    "--metrics-recording-only",
]


def firefox_user_js():
    def literal(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "".join(f'user_pref("{name}", {literal(value)});\n' for name, value in FIREFOX_PREFS.items())

# WebKitGTK's MiniBrowser: every host but the loopback server's through the dead proxy. It starts
# no background service of its own that reaches the network (no updates, sync or safe browsing).

WEBKIT_FLAGS = [
    f"--proxy=http://{DEAD_PROXY[0]}:{DEAD_PROXY[1]}",
    "--ignore-host=localhost", "--ignore-host=127.0.0.1", "--ignore-host=::1",
]
