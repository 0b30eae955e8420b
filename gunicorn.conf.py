"""What gunicorn reads from its working directory (the checkout) when it starts: its own lines
(starting, listening, a worker booted, timed out or exiting, shutting down) in the project's
log format (config/logs.py: UTC with its Z, level, logger, message), like every line of the
pages, the workers and beat. Nothing else is set here: the command line says the rest
(docs/operations.md "Production layout")."""

from gunicorn.glogging import Logger

from config.logs import UTCFormatter


class ProjectLogger(Logger):
    """gunicorn's logger, its handlers writing the project's line."""

    def setup(self, cfg):
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(UTCFormatter())


logger_class = ProjectLogger
