package io.overdrive.cache.page;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.util.List;

import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

/**
 * The entries of a {@link TableFilter} property are {@code schema.table} patterns. Validated like every other catalog
 * property, so that a bad entry fails the catalog at startup on every node as {@code Invalid configuration property
 * <property>: <property> entry '<entry>' ...}, saying how to write it: Airlift reports an exception thrown by a setter
 * without its message, and a fixed {@code @AssertTrue} message cannot name the entry.
 */
@Target(METHOD)
@Retention(RUNTIME)
@Constraint(validatedBy = TablePatterns.Validator.class)
public @interface TablePatterns
{
    /** The property, for the message. */
    String property();

    String message() default "must be comma-separated schema.table patterns";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    class Validator
            implements ConstraintValidator<TablePatterns, List<String>>
    {
        private String property;

        @Override
        public void initialize(TablePatterns annotation)
        {
            property = annotation.property();
        }

        @Override
        public boolean isValid(List<String> entries, ConstraintValidatorContext context)
        {
            if (entries == null) {
                return true;
            }
            try {
                TableFilter.parse(property, entries);
                return true;
            }
            catch (IllegalArgumentException e) {
                context.disableDefaultConstraintViolation();
                context.buildConstraintViolationWithTemplate(escape(e.getMessage())).addConstraintViolation();
                return false;
            }
        }

        // the message is a template: an entry's own braces, dollars and backslashes must come out as written
        private static String escape(String message)
        {
            StringBuilder escaped = new StringBuilder(message.length());
            for (char c : message.toCharArray()) {
                if (c == '\\' || c == '{' || c == '}' || c == '$') {
                    escaped.append('\\');
                }
                escaped.append(c);
            }
            return escaped.toString();
        }
    }
}
