"""Django's own words that Mesa says its own way (locale/*/LC_MESSAGES/django.po).

The catalogs rewrite the labels and messages of Django's password forms and
validators in the site's tone. makemessages keeps only the entries it finds
in the project's source and would turn these into obsolete "#~" lines, so
Django's own wording would come back; naming them here keeps them. Nothing
imports this module.
"""

from django.utils.translation import gettext_noop, ngettext_lazy

WORDS = [
    gettext_noop("Password"),
    gettext_noop("Password confirmation"),
    gettext_noop("New password"),
    gettext_noop("New password confirmation"),
    gettext_noop("Old password"),
    gettext_noop("Enter the same password as before, for verification."),
    gettext_noop("The two password fields didn’t match."),
    gettext_noop("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
    gettext_noop("A user with that username already exists."),
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("Your password can’t be entirely numeric."),
    gettext_noop("This password is too common."),
    gettext_noop("This password is entirely numeric."),
    gettext_noop("The password is too similar to the %(verbose_name)s."),
]

PLURALS = [
    ngettext_lazy(
        "Your password must contain at least %(min_length)d character.",
        "Your password must contain at least %(min_length)d characters.",
        "count",
    ),
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        "count",
    ),
]
