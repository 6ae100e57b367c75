"""Three boxes stacked on the ground stay at rest; the contact forces are 3mg, 2mg, mg.

    python examples/spatial/stack_of_three.py [--html stack.html]
"""

import argparse

import stickslip as ss

model = ss.spatial.Model(gravity=(0, 0, -9.81))
for i in range(3):
    model.add_body(f"b{i}", mass=1.0, shape=ss.spatial.Box(0.1, 0.1, 0.1),
                   position=(0.0, 0.0, 0.05 + 0.1 * i))
model.add_ground(mu_s=0.5, mu_k=0.3)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--html", help="write an animation: .html (self-contained, the GIF "
                        "inline) or .gif")
    args = parser.parse_args()
    res = model.simulate(0.5, dt=1e-3, dt_out=0.01)
    for name in ("ground-b0", "b0-b1", "b1-b2"):
        print(f"{name}: f_n = {res[name + '.fn'][-1]:.6f} N")
    if args.html:
        from _animate import animate
        animate(model, res, args.html)
