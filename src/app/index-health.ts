/** A damaged index named as such (which file, what to do) wherever a surface meets one. */
export { asDamagedIndex, checkIndex } from "../store/damage.js";
