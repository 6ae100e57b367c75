"""Two convex polyhedra collide in the air (no gravity, no ground): momentum is conserved
through the contact; the volume-based normal pushes them apart.

    python examples/spatial/collision_in_air.py [--html collide.html]
"""

import argparse

import numpy as np

import stickslip as ss

hexagon = 0.06 * np.array([[np.cos(a), np.sin(a)] for a in np.radians(np.arange(0, 360, 60))])
model = ss.spatial.Model(gravity=(0, 0, 0))
model.add_body("a", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
               position=(-0.2, 0.0, 0.0), velocity=(0.5, 0.0, 0.0),
               angular_velocity=(0.0, 0.0, 1.0))
model.add_body("b", mass=2.0, shape=ss.spatial.Prism(hexagon, 0.1),
               position=(0.2, 0.03, 0.01), velocity=(-0.25, 0.0, 0.0))

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--html", help="write an animation: .html (self-contained, the GIF "
                        "inline) or .gif")
    args = parser.parse_args()
    res = model.simulate(1.2, dt=1e-3, dt_out=0.01)
    p = [1.0 * res["a.vx"] + 2.0 * res["b.vx"]]
    print(f"momentum x: {p[0][0]:.6f} → {p[0][-1]:.6f} kg m/s; "
          f"contact steps: {int(res['a-b.active'].sum())}; "
          f"v_a = {res['a.vx'][-1]:.3f}, v_b = {res['b.vx'][-1]:.3f} m/s")
    if args.html:
        from _animate import animate
        animate(model, res, args.html)
