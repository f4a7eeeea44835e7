# whitenoise 6 ships no py.typed; Mesa subclasses one class of it (config/storage.py).
