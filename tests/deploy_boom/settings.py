from config.settings.base import *  # noqa: F403

ROOT_URLCONF = "tests.deploy_boom.urls"
