/**
 * The ABI's request and response types (abi/ABI.md in the repository), as plain records in the
 * module's member order; field names are the ABI's camelCase. A null component is an absent
 * optional field.
 */
package io.github.toolerr.abi;
