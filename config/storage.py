"""Static files storage for production."""

from typing import Any

from django.contrib.staticfiles.storage import HashedFilesMixin
from whitenoise.storage import CompressedManifestStaticFilesStorage

# Django's patterns for ES module imports find "import … from" anywhere, the
# JSDoc type imports in comments (`/** @import { Model } from "../types.js" */`)
# included: the lazy match then runs from the comment to the next real import.
# Followed by an `export … from` of the same module, one file's name is hashed
# twice and collectstatic fails ("pieces.<hash>.js could not be found"). Here a
# keyword counts only where a statement can begin: not after "@", a letter, a
# digit, "$" or ".".
_STATEMENT_START = r"(?<![@\w$.])"


def _statements_only(patterns: Any) -> Any:
    extension, rules = patterns
    return (extension, tuple((_STATEMENT_START + rule, template) for rule, template in rules))


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Compressed, hashed static files whose ES module imports are hashed too.

    The board is ES modules with relative imports; without rewriting them,
    main.<hash>.js would import unhashed siblings, and right after a deploy a
    browser could mix old and new modules.
    """

    support_js_module_import_aggregation = True
    _js_module_import_aggregation_patterns = _statements_only(
        getattr(HashedFilesMixin, "_js_module_import_aggregation_patterns")  # noqa: B009 - private in the stubs
    )
