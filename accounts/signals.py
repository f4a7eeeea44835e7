from django.conf import settings
from django.contrib.auth.models import User
from django.db.models.signals import post_save
from django.dispatch import receiver

from .models import Profile


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def create_profile(
    sender: type[User], instance: User, created: bool, raw: bool = False, **kwargs: object
) -> None:
    # Every account has a profile from its first save (fixtures excepted).
    if created and not raw:
        Profile.objects.get_or_create(user=instance)
