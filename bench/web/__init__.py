"""The benchmark's web side (make load): its settings and the bare-Django reference view."""
