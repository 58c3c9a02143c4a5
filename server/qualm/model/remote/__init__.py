"""The remote backend: qualm on a shared inference server (README "Team setup")."""

from .backend import OpenAIBackend, TeacherForcingUnavailable
from .client import RemoteError

__all__ = ["OpenAIBackend", "RemoteError", "TeacherForcingUnavailable"]
