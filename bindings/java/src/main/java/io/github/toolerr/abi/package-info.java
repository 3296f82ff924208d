/**
 * The ABI's request and response types (abi/ABI.md in the repository), as plain records in the
 * module's member order; field names are the ABI's camelCase. A null component is an absent
 * optional field.
 *
 * <p>Most records, and {@link io.github.toolerr.abi.Abi} (the version, error codes, limits and host
 * policy defaults), are generated from abi/abi.json by {@code go run ./abi/gen}, each file saying
 * so in its first line. A request of more than three members, some optional, has {@code
 * of(required members)} and a {@code withX} per optional member, which keep compiling when the ABI
 * adds an optional member (its canonical constructor gains a component then); a smaller one, and a
 * type the module also returns ({@link io.github.toolerr.abi.Delta}), is built with its canonical
 * constructor. The others say in their Javadoc why they are written by hand.
 */
package io.github.toolerr.abi;
