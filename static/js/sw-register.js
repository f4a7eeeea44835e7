// Every page registers the service worker (the offline page and the pushed
// notifications), where the site pushes at all (base.html says so).
if ("serviceWorker" in navigator) {
  const worker = document.querySelector('link[rel="serviceworker"]');
  if (worker instanceof HTMLLinkElement) navigator.serviceWorker.register(worker.href, { scope: "/" }).catch(() => {});
}
