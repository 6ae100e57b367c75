"""A box launched at 1 m/s slides to rest under kinetic friction (μ_d g deceleration).

    python examples/spatial/slide_to_rest.py [--html slide.html]
"""

import argparse

import stickslip as ss

model = ss.spatial.Model(gravity=(0, 0, -9.81))
model.add_body("box", mass=1.0, shape=ss.spatial.Box(0.2, 0.1, 0.1), position=(0, 0, 0.05),
               velocity=(1.0, 0.0, 0.0))
model.add_ground(mu_s=0.5, mu_k=0.3)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--html", help="write an animation: .html (self-contained, the GIF "
                        "inline) or .gif")
    args = parser.parse_args()
    res = model.simulate(0.5, dt=1e-3, dt_out=0.005)
    print(f"stopped at x = {res['box.x'][-1]:.4f} m (1²/(2·0.3·9.81) = {1 / (2 * 0.3 * 9.81):.4f})")
    if args.html:
        from _animate import animate
        animate(model, res, args.html)
