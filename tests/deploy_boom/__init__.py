"""A production-shaped site with one broken page, for tests/test_gunicorn_log.py:
the settings of production plus URLs that raise, to see where a 500 ends up."""
