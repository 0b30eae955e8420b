"""The Redis outage drill's canary (`redis_outage.py --canary`): the project's settings with
Django's own Redis cache in place of config.cache.DegradingRedisCache, which raises when
Redis is away where the project's answers a miss. Pages then answer 500 during the outage,
and the drill must say FAILED."""

from config.settings import *  # noqa: F403
from config.settings import CACHES

CACHES = {alias: dict(conf, BACKEND="django.core.cache.backends.redis.RedisCache")
          for alias, conf in CACHES.items()}
