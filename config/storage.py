"""Static files storage for production."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Compressed, hashed static files whose ES module imports are hashed too.

    The board is ES modules with relative imports; without rewriting them,
    main.<hash>.js would import unhashed siblings, and right after a deploy a
    browser could mix old and new modules.
    """

    support_js_module_import_aggregation = True
