// Keep a room page current: poll the state endpoint while the page is visible
// and refresh when the version changes. The server decides everything; this
// module only notices that something happened.

const FAST_MS = 4000;
const SLOW_MS = 30000;

export function watchRoom({ stateUrl, version, onChange }) {
  let etag = null;
  let delay = FAST_MS;
  let timer = null;

  async function check() {
    timer = null;
    const headers = { Accept: "application/json" };
    if (etag) headers["If-None-Match"] = etag;
    try {
      const response = await fetch(stateUrl, { headers, credentials: "same-origin" });
      if (response.status === 200) {
        // A 200 after a first answer means something changed for this viewer
        // (a move, or an absence becoming claimable); the first answer is
        // compared with the version the page was drawn from.
        const changed = etag !== null;
        etag = response.headers.get("ETag");
        const state = await response.json();
        if (changed || state.version !== version) {
          version = state.version;
          onChange(state);
          delay = FAST_MS;
        } else {
          // Nothing new: back off gently, correspondence games are slow.
          delay = Math.min(delay * 1.5, SLOW_MS);
        }
      } else if (response.status === 304) {
        delay = Math.min(delay * 1.5, SLOW_MS);
      }
    } catch {
      delay = SLOW_MS; // offline or server away: try again later
    }
    schedule();
  }

  function schedule() {
    if (timer === null && document.visibilityState === "visible") {
      timer = window.setTimeout(check, delay);
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") {
      delay = FAST_MS;
      if (timer !== null) window.clearTimeout(timer);
      timer = null;
      check();
    } else if (timer !== null) {
      window.clearTimeout(timer);
      timer = null;
    }
  });
  schedule();
}

// The default reaction: reload, unless the person is typing in a form, in
// which case offer the reload instead of throwing their input away.
export function reloadOrNotify(notice) {
  return () => {
    const active = document.activeElement;
    const typing = active && active.closest("form") && active.matches("input, select, textarea");
    if (typing && notice) {
      notice.hidden = false;
    } else {
      window.location.reload();
    }
  };
}
