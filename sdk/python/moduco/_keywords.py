"""Keyword arguments for the mj_* functions, named as the parameters of MuJoCo's C API
(``mujoco.mj_name2id(m, type=mujoco.mjtObj.mjOBJ_BODY, name="torso")``), as MuJoCo's bindings
accept them. The C functions of _moduco take positional arguments; a call with keywords is
bound here to the positional order. Calls without keywords go straight to C.
"""

# function -> parameter names in order; functions not listed take (m, d)
PARAMS = {
    "mj_step": ("m", "d", "nstep"),
    "mj_forwardSkip": ("m", "d", "skipstage", "skipsensor"),
    "mj_resetDataKeyframe": ("m", "d", "key"),
    "mj_name2id": ("m", "type", "name"),
    "mj_id2name": ("m", "type", "id"),
    "mj_contactForce": ("m", "d", "id", "result"),
    "mj_rne": ("m", "d", "flg_acc", "result"),
    "mj_jac": ("m", "d", "jacp", "jacr", "point", "body"),
    "mj_jacDot": ("m", "d", "jacp", "jacr", "point", "body"),
    "mj_jacPointAxis": ("m", "d", "jacPoint", "jacAxis", "point", "axis", "body"),
    "mj_jacBody": ("m", "d", "jacp", "jacr", "body"),
    "mj_jacBodyCom": ("m", "d", "jacp", "jacr", "body"),
    "mj_jacGeom": ("m", "d", "jacp", "jacr", "geom"),
    "mj_jacSite": ("m", "d", "jacp", "jacr", "site"),
    "mj_jacSubtreeCom": ("m", "d", "jacp", "body"),
    "mj_fullM": ("m", "dst", "M"),
    "mj_mulM": ("m", "d", "res", "vec"),
    "mj_solveM": ("m", "d", "x", "y"),
    "mj_stateSize": ("m", "sig"),
    "mj_getState": ("m", "d", "state", "sig"),
    "mj_setState": ("m", "d", "state", "sig"),
    "mj_integratePos": ("m", "qpos", "qvel", "dt"),
    "mj_differentiatePos": ("m", "qvel", "dt", "qpos1", "qpos2"),
    "mj_normalizeQuat": ("m", "qpos"),
    "mjd_transitionFD": ("m", "d", "eps", "flg_centered", "A", "B", "C", "D"),
    "mjd_transitionImplicit": ("m", "d", "eps", "kappa", "A", "B", "C", "D", "nthread"),
    "mjd_inverseFD": ("m", "d", "eps", "flg_actuation", "DfDq", "DfDv", "DfDa", "DsDq", "DsDv",
                      "DsDa", "DmDq"),
}
NO_ARGS = ("mj_version", "mj_versionString")
ALIASES = {"spec": "sig"}     # older MuJoCo headers name the state bitmask spec


def _bind(name, params, args, kwargs):
  """Positional arguments for a call with keywords; TypeError as Python gives for a def."""
  if len(args) > len(params):
    raise TypeError(f"{name}() takes {len(params)} arguments ({len(args)} given)")
  kwargs = {ALIASES.get(k, k): v for k, v in kwargs.items()}
  out = list(args)
  for p in params[len(args):]:
    if p in kwargs:
      out.append(kwargs.pop(p))
    elif not kwargs:
      break                      # the rest are left to the C function's defaults
    else:
      raise TypeError(f"{name}() missing argument '{p}' before {sorted(kwargs)}")
  for p in params[:len(args)]:
    if p in kwargs:
      raise TypeError(f"{name}() got multiple values for argument '{p}'")
  if kwargs:
    raise TypeError(f"{name}() got unexpected keyword arguments {sorted(kwargs)}; "
                    f"parameters: {', '.join(params)}")
  return out


def _wrap(name, fn, params):
  def call(*args, **kwargs):
    if not kwargs:
      return fn(*args)
    return fn(*_bind(name, params, args, kwargs))
  call.__name__ = call.__qualname__ = name
  call.__doc__ = f"{name}({', '.join(params)}): {fn.__doc__}"
  call.__wrapped__ = fn
  return call


def wrap_all(module):
  """name -> keyword-accepting function for every mj_* / mjd_* function of the C module."""
  out = {}
  for name in dir(module):
    if name.startswith(("mj_", "mjd_")) and name not in NO_ARGS:
      out[name] = _wrap(name, getattr(module, name), PARAMS.get(name, ("m", "d")))
  return out
