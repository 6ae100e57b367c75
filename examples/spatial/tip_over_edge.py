"""A tall box released standing on one edge, tilted past its balance point, tips over.

    python examples/spatial/tip_over_edge.py [--html tip.html]
"""

import argparse

import numpy as np

import stickslip as ss

theta = np.radians(30)                  # tilt about y; balance would need atan(hx/hz) = 18.4°
hx, hz = 0.05, 0.15
model = ss.spatial.Model(gravity=(0, 0, -9.81))
model.add_body("box", mass=1.0, shape=ss.spatial.Box(2 * hx, 0.1, 2 * hz),
               position=(0, 0, hx * np.sin(theta) + hz * np.cos(theta)),
               orientation=(np.cos(theta / 2), 0, np.sin(theta / 2), 0))
model.add_ground(mu_s=0.5, mu_k=0.3)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--html", help="write an animation: .html (self-contained, the GIF "
                        "inline) or .gif")
    args = parser.parse_args()
    res = model.simulate(0.8, dt=1e-3, dt_out=0.005)
    pitch = 2 * np.degrees(np.arctan2(res["box.qy"], res["box.qw"]))
    print(f"tilt {pitch[0]:.1f}° → {pitch[-1]:.1f}° (lying on its side: 90°), "
          f"height {res['box.z'][-1]:.4f} m")
    if args.html:
        from _animate import animate
        animate(model, res, args.html)
