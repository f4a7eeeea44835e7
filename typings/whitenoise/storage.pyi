# The storage class config/storage.py extends, with its real base from Django,
# so the subclass is checked against django-stubs. Checked by stubtest.

from django.contrib.staticfiles.storage import ManifestStaticFilesStorage

class CompressedManifestStaticFilesStorage(ManifestStaticFilesStorage): ...
