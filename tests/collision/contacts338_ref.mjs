// contacts_ref.mjs pinned to MuJoCo 3.3.8 (mujoco-js 0.0.7): `node contacts338_ref.mjs DIR
// MODEL.xml...` is `node contacts_ref.mjs --mujoco 3.3.8 DIR MODEL.xml...`, for
// tu_mjs3Models, which passes no option. Used only where 3.3.8 is the sole reference of a legacy
// collider (test_multiccd.c: the multi-contact of nativeccd="disable", 3.3.8's scheme on libccd
// MPR, which MuJoCo 2.2.2 does not have and 3.14 replaced).
import { contactRows, forwardOnHarness } from './contacts_ref.mjs';

process.argv.splice(2, 0, '--mujoco', '3.3.8');
forwardOnHarness('contacts338_ref.mjs', contactRows);
