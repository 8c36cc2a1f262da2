"""Closed forms of geometric optics that the procedural scenes are built from (pure functions, SI-free units).

Sign convention of the mirror formulas (real-is-positive): distances are measured from the mirror's vertex,
positive in front of it (the side the light comes from); a concave mirror has f > 0, a convex one f < 0;
di > 0 is a real image in front of the mirror, di < 0 a virtual image behind it; m = −di/do (m < 0: inverted).
"""

from __future__ import annotations

import math

N_AIR = 1.0
"""Refractive index of air used by the scenes."""

N_WATER = 1.333
"""Refractive index of water used by the scenes."""

N_GLASS = 1.5
"""Refractive index of crown glass used by the scenes."""


def shadow_length(height: float, elevation_deg: float) -> float:
    """Return the length of the shadow a vertical object of ``height`` casts on level ground: h / tan(elevation)."""
    if height < 0:
        raise ValueError(f"height must be >= 0, got {height}")
    if not 0.0 < elevation_deg < 90.0:
        raise ValueError(f"the light's elevation must lie strictly between 0 and 90 degrees, got {elevation_deg}")
    return height / math.tan(math.radians(elevation_deg))


def point_light_elevation(light_height: float, object_height: float, distance: float) -> float:
    """Return the elevation (degrees) of a point light seen from the top of an object ``distance`` from its foot."""
    if light_height <= object_height:
        raise ValueError(
            f"a point light at height {light_height} casts no bounded shadow of an object {object_height} tall; "
            "the light must be higher than the object"
        )
    if distance <= 0:
        raise ValueError(f"the object's horizontal distance from the light must be > 0, got {distance}")
    return math.degrees(math.atan2(light_height - object_height, distance))


def point_light_shadow_length(light_height: float, object_height: float, distance: float) -> float:
    """Return the shadow length of an object under a point light at ``light_height``: h·d / (H − h)."""
    point_light_elevation(light_height, object_height, distance)  # validates
    return object_height * distance / (light_height - object_height)


def mirror_image_distance(focal_length: float, object_distance: float) -> float:
    """Return the image distance di from the mirror equation 1/f = 1/do + 1/di (real-is-positive signs)."""
    if object_distance <= 0:
        raise ValueError(f"the object distance must be > 0 (a real object in front), got {object_distance}")
    if focal_length == 0:
        raise ValueError("a focal length of 0 is not a mirror; use f > 0 (concave) or f < 0 (convex)")
    if math.isclose(object_distance, focal_length):
        raise ValueError("an object at the focal point forms its image at infinity; move it off F")
    return focal_length * object_distance / (object_distance - focal_length)


def magnification(image_distance: float, object_distance: float) -> float:
    """Return the lateral magnification m = −di/do (negative: inverted image)."""
    return -image_distance / object_distance


def plane_mirror_image_distance(object_distance: float) -> float:
    """Return the image distance of a plane mirror: −do (a virtual image as far behind as the object is in front)."""
    if object_distance <= 0:
        raise ValueError(f"the object distance must be > 0, got {object_distance}")
    return -object_distance


def apparent_depth(real_depth: float, n_object: float, n_viewer: float) -> float:
    """Return the apparent depth seen near the normal: real depth × n_viewer / n_object."""
    if n_object <= 0 or n_viewer <= 0:
        raise ValueError("refractive indices must be > 0")
    return real_depth * n_viewer / n_object


def critical_angle(n1: float, n2: float) -> float:
    """Return the critical angle (degrees) for light going from medium n1 into n2: asin(n2/n1); needs n1 > n2."""
    if not n1 > n2 > 0:
        raise ValueError(f"total internal reflection needs n1 > n2 > 0, got n1={n1}, n2={n2}")
    return math.degrees(math.asin(n2 / n1))


def refraction_angle(incidence_deg: float, n1: float, n2: float) -> float | None:
    """Return the refraction angle (degrees) from Snell's law n1 sin θ1 = n2 sin θ2, or None beyond the critical angle."""
    s = n1 * math.sin(math.radians(incidence_deg)) / n2
    if s > 1.0 + 1e-12:
        return None
    return math.degrees(math.asin(min(1.0, s)))
